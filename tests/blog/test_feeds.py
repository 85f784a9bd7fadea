"""Atom feeds: the site, a tag and a series, with full content for feed readers."""

import datetime
import re
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
import wagtail_factories
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from taggit.models import Tag
from wagtail.embeds.blocks import EmbedValue
from wagtail.rich_text import RichText

from blog.feeds import FEED_LENGTH
from blog.models import PostTag
from rendering import highlight, render_markdown, render_math
from rendering.feed import absolutize_urls
from tests.factories import PostPageFactory, SeriesPageFactory

ATOM = "{http://www.w3.org/2005/Atom}"


def parse(response):
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)  # noqa: S314  our own output


def entries(feed):
    return feed.findall(f"{ATOM}entry")


def titles(feed):
    return [entry.findtext(f"{ATOM}title") for entry in entries(feed)]


def content(feed, title):
    for entry in entries(feed):
        if entry.findtext(f"{ATOM}title") == title:
            element = entry.find(f"{ATOM}content")
            assert element.get("type") == "html"
            return element.text
    raise AssertionError(f"no entry {title!r}")


@pytest.fixture
def site(home):
    """A section, a nested series and tagged posts with math, code and a figure."""
    home.author = "刘芷溢"
    home.save()
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    notes = SeriesPageFactory(parent=home, title="Notes", slug="notes")
    csapp = SeriesPageFactory(parent=notes, title="CSAPP", slug="csapp")
    flash = PostPageFactory(
        parent=cuda,
        title="FlashAttention 笔记",
        slug="flash",
        summary="IO 感知的注意力 <tiled>。",
        date=datetime.date(2026, 9, 18),
        updated=datetime.date(2026, 9, 20),
        tags=["cuda", "attention"],
    )
    flash.body = [
        ("heading", {"text": "分块 $B_r$", "level": "h2"}),
        (
            "paragraph",
            RichText('<p>设 $n = 2^k$，见 <a href="/notes/csapp/">CSAPP</a>。</p>'),
        ),
        ("math", {"tex": r"O = \operatorname{softmax}(QK^\top)V", "label": ""}),
        (
            "code",
            {
                "language": "cuda",
                "filename": "",
                "code": "__global__ void flash() {}",
                "highlight_lines": "",
                "line_numbers": False,
            },
        ),
        ("markdown", "行内 $x^2$。\n\n```python\ndef f():\n    return 1\n```\n"),
        ("html_figure", {"html": "<script>draw()</script>", "height": 200}),
    ]
    flash.save()
    link = PostPageFactory(
        parent=csapp,
        title="csapp-7-链接",
        slug="csapp-7-链接",
        date=datetime.date(2023, 9, 18),
        tags=["csapp"],
    )
    old = PostPageFactory(
        parent=home,
        title="旧文章",
        slug="old",
        date=datetime.date(2024, 1, 2),
        tags=["cuda"],
    )
    return {"cuda": cuda, "csapp": csapp, "flash": flash, "link": link, "old": old}


def test_site_feed_lists_posts_newest_first_with_ids_dates_and_links(client, site):
    feed = parse(client.get("/feed/"))
    assert feed.findtext(f"{ATOM}title") == "刘芷溢的博客"
    assert feed.findtext(f"{ATOM}author/{ATOM}name") == "刘芷溢"
    assert feed.findtext(f"{ATOM}updated").startswith("2026-09-20")
    assert titles(feed) == ["FlashAttention 笔记", "旧文章", "csapp-7-链接"]

    ids = [entry.findtext(f"{ATOM}id") for entry in entries(feed)]
    assert len(set(ids)) == len(ids)
    assert all(id_.startswith("tag:testserver,") for id_ in ids)

    flash = entries(feed)[0]
    assert flash.findtext(f"{ATOM}published").startswith("2026-09-18")
    assert flash.findtext(f"{ATOM}updated").startswith("2026-09-20")
    assert flash.find(f"{ATOM}link").get("href") == "http://testserver/cuda/flash/"
    assert flash.findtext(f"{ATOM}summary") == "IO 感知的注意力 &lt;tiled&gt;。"
    categories = [c.get("term") for c in flash.findall(f"{ATOM}category")]
    assert categories == ["attention", "cuda"]  # as the post page lists them


def categories_of(feed, title):
    for entry in entries(feed):
        if entry.findtext(f"{ATOM}title") == title:
            return [c.get("term") for c in entry.findall(f"{ATOM}category")]
    raise AssertionError(f"no entry {title!r}")


def test_an_entry_shows_its_post_s_tags_as_they_change(
    client, site, django_capture_on_commit_callbacks
):
    flash = site["flash"]
    assert categories_of(parse(client.get("/feed/")), flash.title) == [
        "attention",
        "cuda",
    ]
    # Retagged and published, as an editor does.
    flash.tags.add("triton")
    with django_capture_on_commit_callbacks(execute=True):
        flash.save_revision().publish()
    assert categories_of(parse(client.get("/feed/")), flash.title) == [
        "attention",
        "cuda",
        "triton",
    ]
    # A tag row written straight, by a script: the entry follows it too, and
    # so does the post's page.
    assert 'href="/tags/cuda/"' in client.get(flash.url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        PostTag.objects.filter(content_object=flash, tag__name="cuda").delete()
    assert categories_of(parse(client.get("/feed/")), flash.title) == [
        "attention",
        "triton",
    ]
    assert 'href="/tags/cuda/"' not in client.get(flash.url).content.decode()
    # A renamed tag.
    with django_capture_on_commit_callbacks(execute=True):
        tag = Tag.objects.get(name="triton")
        tag.name = "Triton"
        tag.save()
    assert categories_of(parse(client.get("/feed/")), flash.title) == [
        "attention",
        "Triton",
    ]


def test_feed_content_is_math_as_mathml_and_inline_styled_code(client, site):
    html = content(parse(client.get("/feed/")), "FlashAttention 笔记")
    # Heading, paragraph, display and Markdown math: MathML only, no KaTeX HTML.
    assert html.count("<math") == 4
    assert "katex-html" not in html
    # Block and Markdown code: colours in style attributes, not classes.
    assert '<span style="color: #008000; font-weight: bold">__global__</span>' in html
    assert '<span style="color: #008000; font-weight: bold">def</span>' in html
    assert 'class="kt"' not in html


def test_feed_content_links_are_absolute_and_figures_become_links(client, site):
    html = content(parse(client.get("/feed/")), "FlashAttention 笔记")
    assert 'href="http://testserver/notes/csapp/"' in html
    assert "<iframe" not in html and "draw()" not in html
    assert '<a href="http://testserver/cuda/flash/">交互式图：在网页中查看</a>' in html
    assert "heading-anchor" not in html


@pytest.fixture
def clean_rendition_cache():
    """Wagtail caches renditions by image id, and ids are reused between tests."""
    caches["default"].clear()
    yield
    caches["default"].clear()


@pytest.mark.usefixtures("clean_rendition_cache")
def test_feed_images_have_absolute_urls_and_embeds_become_links(client, home):
    image = wagtail_factories.ImageFactory(file__width=800, file__height=400)
    post = PostPageFactory(parent=home, slug="pictures", title="图")
    post.body = [
        ("image", {"image": image, "alt": "示意图", "caption": ""}),
        ("embed", EmbedValue("https://www.youtube.com/watch?v=bDcPmZQwV3g")),
    ]
    post.save()
    html = content(parse(client.get("/feed/")), "图")
    sources = re.findall(r'\b(?:src|srcset)="([^"]+)"', html)
    assert sources
    for source in sources:
        for candidate in source.split(","):
            assert candidate.strip().startswith("http://testserver/"), candidate
    assert "<iframe" not in html
    assert (
        '<a href="https://www.youtube.com/watch?v=bDcPmZQwV3g">'
        "https://www.youtube.com/watch?v=bDcPmZQwV3g</a>"
    ) in html


def test_control_characters_pasted_into_a_post_are_left_out_of_its_entry(client, site):
    post = site["old"]
    post.body = [("paragraph", RichText("<p>before\x0b\x01after &amp; more</p>"))]
    post.save_revision().publish()
    html = content(parse(client.get("/feed/")), "旧文章")  # well-formed XML
    assert "beforeafter &amp; more" in html
    assert client.get(post.url).status_code == 200


def test_a_published_change_is_in_the_feed_at_once(client, site):
    post = site["old"]
    post.body = [("paragraph", RichText("<p>旧的一段</p>"))]
    post.save_revision().publish()
    assert "旧的一段" in content(parse(client.get("/feed/")), "旧文章")
    post.body = [("paragraph", RichText("<p>新的一段 $y^2$</p>"))]
    post.save_revision().publish()
    html = content(parse(client.get("/feed/")), "旧文章")
    assert "新的一段" in html and "<math" in html and "旧的一段" not in html


def test_drafts_are_not_in_feeds(client, site):
    feeds = ["/feed/", "/tags/cuda/feed/", "/cuda/feed/"]
    for url in feeds:
        assert "FlashAttention 笔记" in titles(parse(client.get(url))), url
    site["flash"].unpublish()
    for url in feeds:
        assert "FlashAttention 笔记" not in titles(parse(client.get(url))), url


def test_tag_feed_has_only_that_tags_posts(client, site):
    feed = parse(client.get("/tags/cuda/feed/"))
    assert titles(feed) == ["FlashAttention 笔记", "旧文章"]
    assert feed.findtext(f"{ATOM}title") == "#cuda · 刘芷溢的博客"
    alternate = feed.find(f"{ATOM}link[@rel='alternate']").get("href")
    assert alternate == "http://testserver/tags/cuda/"


def test_unknown_tag_feed_is_404(client, site):
    assert client.get("/tags/no-such-tag/feed/").status_code == 404


def test_series_feed_has_its_posts(client, site):
    assert titles(parse(client.get("/notes/csapp/feed/"))) == ["csapp-7-链接"]
    # A section's feed has every post under it, nested series included.
    assert titles(parse(client.get("/notes/feed/"))) == ["csapp-7-链接"]
    assert titles(parse(client.get("/cuda/feed/"))) == ["FlashAttention 笔记"]


def test_series_page_still_serves_its_listing(client, site):
    response = client.get("/notes/csapp/")
    assert response.status_code == 200
    assert "csapp-7-链接" in response.content.decode()


def test_feed_has_the_latest_posts_only(client, home):
    for n in range(FEED_LENGTH + 3):
        PostPageFactory(
            parent=home,
            slug=f"p{n}",
            title=f"文章 {n}",
            date=datetime.date(2025, 1, 1) + datetime.timedelta(days=n),
        )
    feed = parse(client.get("/feed/"))
    assert len(entries(feed)) == FEED_LENGTH
    assert titles(feed)[0] == f"文章 {FEED_LENGTH + 2}"


@pytest.mark.parametrize(
    ("url", "feeds"),
    [
        ("/", ["http://testserver/feed/"]),
        # A post: the site's, its section's and its tags' feeds.
        (
            "/cuda/flash/",
            [
                "http://testserver/feed/",
                "http://testserver/cuda/feed/",
                "http://testserver/tags/attention/feed/",
                "http://testserver/tags/cuda/feed/",
            ],
        ),
        (
            "/tags/cuda/",
            ["http://testserver/feed/", "http://testserver/tags/cuda/feed/"],
        ),
        (
            "/notes/csapp/",
            ["http://testserver/feed/", "http://testserver/notes/csapp/feed/"],
        ),
    ],
)
def test_pages_advertise_their_feeds(client, site, url, feeds):
    html = client.get(url).content.decode()
    advertised = re.findall(
        r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" '
        r'href="([^"]+)">',
        html,
    )
    assert advertised == feeds
    for feed in feeds:
        assert client.get(urlsplit(feed).path).status_code == 200


def make_posts(parent, count, start=0):
    for n in range(start, start + count):
        PostPageFactory(
            parent=parent,
            title=f"文章 {n}",
            slug=f"p{n}",
            date=datetime.date(2025, 1, 1) + datetime.timedelta(days=n),
            tags=[f"tag{n % 7}", "cuda"],
        )


@pytest.mark.parametrize("url", ["/feed/", "/tags/cuda/feed/", "/cuda/feed/"])
def test_feed_query_count_does_not_grow_with_posts(client, home, url):
    cuda = SeriesPageFactory(parent=home, slug="cuda", ordering="newest")
    make_posts(cuda, 3)
    client.get(url)  # warm caches: content types, site root paths, renders

    def count():
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    few = count()
    make_posts(cuda, 17, start=100)
    client.get(url)
    many = count()
    assert many == few, f"{url}: {few} queries with 3 posts, {many} with 20"
    # The posts with their bodies and their tags (one joined query) after the
    # site and its root page: 4 for /feed/. Tag and series feeds are routed by
    # Wagtail first (routed page, alias and view-restriction checks) and look
    # the tag up: 8-9.
    assert few <= 10, f"{url} runs {few} queries"


def test_a_feed_rendered_afresh_loads_its_posts_bodies_in_one_query(client, home):
    cuda = SeriesPageFactory(parent=home, slug="cuda", ordering="newest")

    def make(numbers):
        for n in numbers:
            PostPageFactory(
                parent=cuda,
                title=f"文章 {n}",
                date=datetime.date(2025, 1, 1) + datetime.timedelta(days=n),
                body__0__paragraph__value=RichText(f"<p>第 {n} 篇的正文</p>"),
            )

    def cold_count(posts):
        caches["renders"].clear()
        with CaptureQueriesContext(connection) as captured:
            feed = parse(client.get("/feed/"))
        assert len(entries(feed)) == posts
        return len(captured), feed

    make(range(3))
    client.get("/feed/")  # content types, site root paths
    few, _ = cold_count(3)
    make(range(100, 117))
    many, feed = cold_count(20)
    assert many == few, f"{few} queries to render 3 entries, {many} to render 20"
    # Each entry has its own post's body.
    for n in (0, 2, 100, 116):
        assert f"第 {n} 篇的正文" in content(feed, f"文章 {n}")


def test_render_math_mathml_output_has_no_katex_html():
    page = render_math(r"\frac{a}{b}")
    feed = render_math(r"\frac{a}{b}", output="mathml")
    assert "katex-html" in page and "<math" in page
    assert "katex-html" not in feed and "<math" in feed
    with pytest.raises(ValueError, match="output"):
        render_math("x", output="svg")


def test_markdown_and_highlight_have_a_feed_mode():
    assert "katex-html" not in render_markdown("$x$", feed=True)
    assert "katex-html" in render_markdown("$x$")
    styled = highlight("int x;", "c", inline_styles=True)
    assert 'style="color: #B00040"' in styled and 'class="kt"' not in styled
    assert 'class="kt"' in highlight("int x;", "c")


def test_absolutize_urls_resolves_links_images_and_srcsets():
    html = (
        '<a href="#s">s</a><a href="/x/">x</a><a href="https://e.org/">e</a>'
        '<img src="/media/a.png" srcset="/media/a.png 480w, /media/b.png 800w">'
    )
    assert absolutize_urls(html, "http://h/p/") == (
        '<a href="http://h/p/#s">s</a><a href="http://h/x/">x</a>'
        '<a href="https://e.org/">e</a><img src="http://h/media/a.png" '
        'srcset="http://h/media/a.png 480w, http://h/media/b.png 800w">'
    )


def test_feed_content_shows_a_diagram_as_its_source_in_code(client, home):
    post = PostPageFactory(parent=home, slug="diagram", title="图表")
    post.body = [
        ("diagram", {"source": "flowchart LR\n    A[主机] --> B[设备 <GPU>]"}),
        ("markdown", "```mermaid\nsequenceDiagram\n    H->>D: copy\n```"),
    ]
    post.save()
    html = content(parse(client.get("/feed/")), "图表")
    assert "<pre" in html and "<script" not in html
    codes = re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", html, re.S)
    assert codes == [
        "flowchart LR\n    A[主机] --&gt; B[设备 &lt;GPU&gt;]",
        "sequenceDiagram\n    H-&gt;&gt;D: copy",
    ]
