"""Hover preview cards (<url>preview/) and the post's neighbourhood graph."""

import re

import pytest
from django.core.cache import caches
from wagtail.models import PageViewRestriction
from wagtail.rich_text import RichText

from blog.graph import SIDE_CAP, truncate
from blog.models.preview import PREVIEW_MAX_AGE, first_paragraph
from tests.factories import PostPageFactory, SeriesPageFactory


def publish(post, body):
    """Give a post a new body (raw (type, value) pairs) and publish it."""
    post.body = body
    post.save_revision().publish()
    return post


def link_to(*posts):
    links = "".join(
        f'<a linktype="page" id="{post.pk}">{post.title}</a>' for post in posts
    )
    return ("paragraph", RichText(f"<p>见 {links}</p>"))


def section(html: str, start: str, end: str) -> str:
    begin = html.index(start)
    return html[begin : html.index(end, begin) + len(end)]


@pytest.fixture
def math_post(home):
    post = PostPageFactory(
        parent=home,
        title="Bank Conflict 与 Swizzle",
        slug="bank",
        summary="地址 $a$ 落在第 $a \\bmod 32$ 个 bank。",
    )
    return publish(
        post,
        [
            ("heading", {"text": "引言", "level": "h2"}),
            ("paragraph", RichText("<p>一个 word 落在 bank $b = a / 4$，见脚注。</p>")),
            ("paragraph", RichText("<p>第二段不在卡片里。</p>")),
        ],
    )


# --- the card -------------------------------------------------------------


def test_the_card_shows_title_date_summary_and_first_paragraph_typeset(
    client, math_post
):
    response = client.get(f"{math_post.url}preview/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Cache-Control"] == f"public, max-age={PREVIEW_MAX_AGE}"
    assert response["X-Robots-Tag"] == "noindex"
    html = response.content.decode()
    assert '<a href="/bank/">Bank Conflict 与 Swizzle</a>' in html
    assert f'datetime="{math_post.date:%Y-%m-%d}"' in html
    summary = section(html, '<p class="preview-summary">', "</p>")
    assert summary.count('class="katex"') == 2 and "$" not in summary
    excerpt = section(html, '<div class="preview-excerpt">', "</div>")
    assert "一个 word 落在 bank" in excerpt and 'class="katex"' in excerpt
    assert "第二段" not in html and "<html" not in html and "引言" not in html
    # The page that shows it may have no math: the card says where KaTeX's CSS is.
    assert re.search(r'data-math-css="/static/katex/katex[^"]*\.css"', html)


def test_a_card_without_math_asks_for_no_math_styles(client, home):
    post = publish(
        PostPageFactory(parent=home, slug="plain", summary="没有公式"),
        [("paragraph", RichText("<p>纯文字。</p>"))],
    )
    html = client.get(f"{post.url}preview/").content.decode()
    assert "纯文字。" in html and "data-math-css" not in html


def test_a_series_has_a_card_of_its_intro(client, home):
    series = SeriesPageFactory(parent=home, title="CSAPP", slug="csapp")
    series.intro = [("paragraph", RichText("<p>读书笔记 $x$。</p>"))]
    series.save_revision().publish()
    html = client.get("/csapp/preview/").content.decode()
    assert '<a href="/csapp/">CSAPP</a>' in html and 'class="katex"' in html


def test_drafts_and_private_posts_have_no_card(client, home):
    draft = PostPageFactory(parent=home, slug="draft", title="草稿")
    draft.unpublish()
    private = PostPageFactory(parent=home, slug="private", title="私密")
    PageViewRestriction.objects.create(page=private, restriction_type="login")
    secret = PostPageFactory(parent=home, slug="secret", title="有密码")
    PageViewRestriction.objects.create(
        page=secret, restriction_type="password", password="pw"
    )
    for post in (draft, private, secret):
        response = client.get(f"/{post.slug}/preview/")
        assert response.status_code == 404, post.slug
        assert post.title.encode() not in response.content
    assert client.get("/no-such-post/preview/").status_code == 404


def test_footnote_ids_are_left_out_of_the_card():
    html = (
        '<div class="block-markdown"><h2 id="x">t</h2>'
        '<p>甲<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup></p></div>'
    )
    assert first_paragraph(html) == (
        '<p>甲<sup class="footnote-ref"><a href="#fn1">[1]</a></sup></p>'
    )
    assert first_paragraph('<div class="block-code"><p>x</p></div>') == ""


def test_the_card_runs_few_queries(client, math_post, django_assert_max_num_queries):
    client.get(f"{math_post.url}preview/")  # warm the render and per-process caches
    # Site, root page, routed page (2), and whether any page is private, asked
    # by the route and by Wagtail's check (2; kept between requests when the
    # page cache is on). The body comes from the render cache.
    with django_assert_max_num_queries(6):
        assert client.get(f"{math_post.url}preview/").status_code == 200


def test_the_card_is_served_from_the_page_cache_and_purged_on_publish(
    client, math_post, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    url = f"{math_post.url}preview/"
    assert client.get(url)["X-Page-Cache"] == "miss"
    hit = client.get(url)
    assert hit["X-Page-Cache"] == "hit" and hit["Content-Type"].startswith("text/html")
    assert hit["Cache-Control"] == f"public, max-age={PREVIEW_MAX_AGE}"
    # The card's path is among those a publish purges, never "every page".
    assert url in math_post.get_purge_paths()

    math_post.summary = "新的摘要"
    with django_capture_on_commit_callbacks(execute=True):
        math_post.save_revision().publish()
    fresh = client.get(url)
    assert fresh["X-Page-Cache"] == "miss" and "新的摘要" in fresh.content.decode()
    caches["default"].clear()


# --- the graph ------------------------------------------------------------


def graph_nodes(html: str) -> dict[str, list[tuple[str, str]]]:
    """Return the graph's nodes by kind: (href, full title) pairs."""
    svg = section(html, '<svg class="graph"', "</svg>")
    nodes = {}
    for kind, href, title in re.findall(
        r'<a class="graph-node graph-node-(\w+)" href="([^"]+)"[^>]*>\s*'
        r"<title>([^<]*)</title>",
        svg,
    ):
        nodes.setdefault(kind, []).append((href, title))
    return nodes


@pytest.fixture
def neighbourhood(home):
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    series = SeriesPageFactory(parent=notes, title="CSAPP 读书笔记", slug="csapp")
    first, middle, last = (
        PostPageFactory(parent=series, title=f"第{n}章", slug=f"ch{n}")
        for n in range(1, 4)
    )
    cited = PostPageFactory(
        parent=home, title="被本文引用的一篇很长很长的文章", slug="cited"
    )
    citing = PostPageFactory(parent=home, title="引用本文", slug="citing")
    publish(middle, [link_to(cited)])
    publish(citing, [link_to(middle)])
    return {"series": series, "first": first, "middle": middle, "last": last,
            "cited": cited, "citing": citing}  # fmt: skip


def test_the_graph_links_the_post_to_its_links_backlinks_and_series(
    client, neighbourhood
):
    html = client.get("/notes/csapp/ch2/").content.decode()
    nodes = graph_nodes(html)
    assert nodes == {
        "center": [("/notes/csapp/ch2/", "第2章")],
        "parent": [("/notes/csapp/", "CSAPP 读书笔记")],
        "previous": [("/notes/csapp/ch1/", "第1章")],
        "next": [("/notes/csapp/ch3/", "第3章")],
        "out": [("/cited/", "被本文引用的一篇很长很长的文章")],
        "in": [("/citing/", "引用本文")],
    }
    svg = section(html, '<svg class="graph"', "</svg>")
    # Long titles are cut on the drawing; the whole title is in its <title>.
    assert ">被本文引…</text>" in svg
    assert svg.count("<line ") == 5
    assert "← 引用本文" in svg and "本文引用 →" in svg
    # The graph is made on the server: no script draws it.
    assert "<script" not in section(html, '<details class="post-graph">', "</details>")


def test_a_post_with_no_neighbours_has_no_graph(client, home):
    post = PostPageFactory(parent=home, slug="alone")
    response = client.get(post.url)
    assert response.status_code == 200
    assert post.title in response.content.decode()
    assert "post-graph" not in response.content.decode()


def test_the_graph_shows_a_few_posts_on_each_side_and_the_page_stays_cheap(
    client, home, settings, django_capture_on_commit_callbacks
):
    # As in production: what the page shows of other pages is kept between
    # requests, until the publishes below purge it.
    settings.LISTING_CACHE_SECONDS = 3600
    hub = PostPageFactory(parent=home, title="枢纽", slug="hub")
    client.get(hub.url)
    few = _queries(client, hub.url)
    with django_capture_on_commit_callbacks(execute=True):
        targets = [PostPageFactory(parent=home, slug=f"t{n}") for n in range(12)]
        publish(hub, [link_to(*targets)])
        for n in range(12):
            publish(PostPageFactory(parent=home, slug=f"c{n}"), [link_to(hub)])
    client.get(hub.url)
    many = _queries(client, hub.url)
    nodes = graph_nodes(client.get(hub.url).content.decode())
    assert len(nodes["out"]) == len(nodes["in"]) == SIDE_CAP
    assert many == few and many <= 10


def _queries(client, url):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_a_post_that_stops_linking_here_leaves_the_graph_and_backlinks(
    client, neighbourhood, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    url = "/notes/csapp/ch2/"
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"
    assert ("/citing/", "引用本文") in graph_nodes(client.get(url).content.decode())[
        "in"
    ]

    with django_capture_on_commit_callbacks(execute=True):
        publish(neighbourhood["citing"], [("paragraph", RichText("<p>不再引用</p>"))])
    response = client.get(url)
    assert response["X-Page-Cache"] == "miss"
    html = response.content.decode()
    assert "in" not in graph_nodes(html) and "引用本文的文章" not in html


def test_a_renamed_linked_post_is_renamed_in_the_graph(
    client, neighbourhood, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    url = "/notes/csapp/ch2/"
    client.get(url)
    cited = neighbourhood["cited"]
    cited.title = "新标题"
    with django_capture_on_commit_callbacks(execute=True):
        cited.save_revision().publish()
    assert ("/cited/", "新标题") in graph_nodes(client.get(url).content.decode())["out"]


def test_labels_are_cut_to_about_five_chinese_characters():
    assert truncate("短标题") == "短标题"
    assert truncate("一二三四五六七八九") == "一二三四…"
    assert truncate("FlashAttention v1-v4") == "FlashAtt…"


def test_a_post_that_starts_linking_here_shows_in_backlinks_at_once_with_a_queue(
    client, neighbourhood, settings, database_queue, django_capture_on_commit_callbacks
):
    # As deployed, Wagtail updates its reference index on a task worker; the
    # page a publish newly links to must be purged now, not when that runs.
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    url = "/notes/csapp/ch3/"
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"
    assert "引用本文的文章" not in client.get(url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        publish(neighbourhood["citing"], [link_to(neighbourhood["last"])])
    response = client.get(url)
    assert response["X-Page-Cache"] == "miss"
    assert ("/citing/", "引用本文") in graph_nodes(response.content.decode())["in"]
