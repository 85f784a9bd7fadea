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
    links = "".join(f'<a linktype="page" id="{post.pk}">{post.title}</a>' for post in posts)
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
    assert url in math_post.get_purge_paths()

    math_post.summary = "新的摘要"
    with django_capture_on_commit_callbacks(execute=True):
        math_post.save_revision().publish()
    fresh = client.get(url)
    assert fresh["X-Page-Cache"] == "miss" and "新的摘要" in fresh.content.decode()
    caches["default"].clear()
