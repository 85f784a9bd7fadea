"""Page metadata (title, description, canonical, OpenGraph, Twitter, JSON-LD),
the sitemap's lastmod, and the social preview images."""

import datetime
import io
import json
import re
from html.parser import HTMLParser
from unittest import mock

import pytest
from django.core.cache import cache
from PIL import Image

from blog import social
from blog.models import SeriesPage
from blog.seo import page_meta
from tests.factories import PostPageFactory, SeriesPageFactory


class HeadParser(HTMLParser):
    """Collect <title>, <meta>, <link> and JSON-LD scripts of a page."""

    def __init__(self):
        super().__init__()
        self.title = ""
        self.meta = {}
        self.meta_lists = {}
        self.links = {}
        self.json_ld = []
        self._in = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and ("property" in attrs or "name" in attrs):
            key = attrs.get("property") or attrs["name"]
            self.meta.setdefault(key, attrs["content"])
            self.meta_lists.setdefault(key, []).append(attrs["content"])
        elif tag == "link":
            self.links.setdefault(attrs["rel"], attrs["href"])
        elif tag == "title" or (
            tag == "script" and attrs.get("type") == "application/ld+json"
        ):
            self._in = tag

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "script":
            self.json_ld.append(json.loads(data))


def head(client, url, **extra):
    response = client.get(url, **extra)
    assert response.status_code == 200, url
    parser = HeadParser()
    parser.feed(response.content.decode())
    return parser


def graph(parser, type_):
    (data,) = parser.json_ld
    assert data["@context"] == "https://schema.org"
    return [item for item in data["@graph"] if item["@type"] == type_]


@pytest.fixture
def site(home):
    home.author = "刘芷溢"
    home.intro = "<p>GPU、量化与系统的笔记。</p>"
    home.save()
    cuda = SeriesPageFactory(
        parent=home,
        title="CUDA",
        slug="cuda",
        # The description is the intro's prose, not its code.
        intro=[
            {"type": "paragraph", "value": "<p>CUDA 编程。</p>"},
            {"type": "code", "value": {"language": "c", "code": "int x;"}},
        ],
    )
    cute = SeriesPageFactory(parent=cuda, title="CuTe", slug="cute")
    flash = PostPageFactory(
        parent=cute,
        title="FlashAttention 笔记",
        slug="flash",
        summary="IO 感知的注意力。",
        date=datetime.date(2026, 9, 18),
        updated=datetime.date(2026, 9, 20),
        tags=["cuda", "attention"],
    )
    return {"home": home, "cuda": cuda, "cute": cute, "flash": flash}


PAGES = [
    # url, title, description, og:type
    ("/", "刘芷溢的博客", "GPU、量化与系统的笔记。", "website"),
    ("/cuda/", "CUDA", "CUDA 编程。", "website"),
    ("/cuda/cute/flash/", "FlashAttention 笔记", "IO 感知的注意力。", "article"),
    ("/tags/", "标签", "GPU、量化与系统的笔记。", "website"),
    ("/tags/cuda/", "#cuda", "标签 #cuda 下的文章。", "website"),
    ("/archive/", "归档", "GPU、量化与系统的笔记。", "website"),
]


@pytest.mark.parametrize(("url", "title", "description", "og_type"), PAGES)
def test_every_page_has_title_description_canonical_og_and_twitter(
    client, site, url, title, description, og_type
):
    page = head(client, url)
    assert page.title.startswith(title)
    canonical = f"http://testserver{url}"
    assert page.links["canonical"] == canonical
    assert page.meta["description"] == description
    assert page.meta["og:title"] == title
    assert page.meta["og:description"] == description
    assert page.meta["og:type"] == og_type
    assert page.meta["og:url"] == canonical
    assert page.meta["og:site_name"] == "刘芷溢的博客"
    assert page.meta["og:locale"] == "zh_CN"
    assert re.fullmatch(
        r"http://testserver/social/\d+\.png\?v=[0-9a-f]{16}", page.meta["og:image"]
    )
    assert page.meta["twitter:card"] == "summary_large_image"
    assert page.meta["twitter:title"] == title
    assert page.meta["twitter:image"] == page.meta["og:image"]
    assert graph(page, "BreadcrumbList")


def test_canonical_follows_the_site_record_not_the_request(client, site, settings):
    settings.ALLOWED_HOSTS = ["blog.example.com", "www.example.com"]
    site["home"].sites_rooted_here.update(hostname="blog.example.com", port=443)
    page = head(client, "/cuda/", HTTP_HOST="www.example.com")
    assert page.links["canonical"] == "https://blog.example.com/cuda/"


def test_later_pages_of_a_listing_keep_their_page_number(client, site):
    page = head(client, "/cuda/?page=2")
    assert page.links["canonical"] == "http://testserver/cuda/?page=2"
    assert head(client, "/cuda/?page=1").links["canonical"] == (
        "http://testserver/cuda/"
    )


def test_post_has_article_tags_and_blog_posting(client, site):
    page = head(client, "/cuda/cute/flash/")
    assert page.meta["article:published_time"] == "2026-09-18"
    assert page.meta["article:modified_time"] == "2026-09-20"
    assert sorted(page.meta_lists["article:tag"]) == ["attention", "cuda"]

    (posting,) = graph(page, "BlogPosting")
    assert posting["headline"] == "FlashAttention 笔记"
    assert posting["datePublished"] == "2026-09-18"
    assert posting["dateModified"] == "2026-09-20"
    assert posting["author"] == {"@type": "Person", "name": "刘芷溢"}
    assert posting["mainEntityOfPage"]["@id"] == "http://testserver/cuda/cute/flash/"
    assert posting["image"] == page.meta["og:image"]
    assert posting["keywords"] == "attention, cuda"

    (crumbs,) = graph(page, "BreadcrumbList")
    assert [
        (c["position"], c["name"], c["item"]) for c in crumbs["itemListElement"]
    ] == [
        (1, "刘芷溢的博客", "http://testserver/"),
        (2, "CUDA", "http://testserver/cuda/"),
        (3, "CuTe", "http://testserver/cuda/cute/"),
        (4, "FlashAttention 笔记", "http://testserver/cuda/cute/flash/"),
    ]


def test_json_ld_cannot_close_its_script(client, site):
    site["flash"].title = "</script><script>alert(1)</script> & <!--"
    site["flash"].save()
    html = client.get("/cuda/cute/flash/").content.decode()
    script = html.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert "<" not in script
    (posting,) = [
        item for item in json.loads(script)["@graph"] if item["@type"] == "BlogPosting"
    ]
    assert posting["headline"] == "</script><script>alert(1)</script> & <!--"


def test_sitemap_lastmod_is_the_posts_updated_date(client, site):
    xml = client.get("/sitemap-pages.xml").content.decode()
    assert (
        "<loc>http://testserver/cuda/cute/flash/</loc><lastmod>2026-09-20</lastmod>"
        in xml
    )
    robots = client.get("/robots.txt").content.decode()
    assert "Sitemap: http://testserver/sitemap.xml" in robots


def png_size(response):
    return Image.open(io.BytesIO(response.content)).size


def test_social_image_is_a_1200x630_png_drawn_once(client, site):
    cache.clear()
    url = head(client, "/cuda/cute/flash/").meta["og:image"]
    with mock.patch.object(
        social, "render_social_image", wraps=social.render_social_image
    ) as render:
        first = client.get(url)
        second = client.get(url)
    assert first.status_code == 200
    assert first["Content-Type"] == "image/png"
    assert png_size(first) == (1200, 630)
    assert first["Cache-Control"] == "public, max-age=86400"
    assert first["ETag"]
    assert render.call_count == 1  # the second request came from the cache
    assert render.call_args.args == (
        "FlashAttention 笔记",
        "刘芷溢的博客",
        "2026-09-18",
    )
    assert second.content == first.content

    not_modified = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert not_modified.status_code == 304


def test_social_image_changes_with_the_title(client, site):
    before = head(client, "/cuda/cute/flash/").meta["og:image"]
    site["flash"].title = "FlashAttention 2"
    site["flash"].save()
    after = head(client, "/cuda/cute/flash/").meta["og:image"]
    assert before != after


def test_social_image_of_a_draft_is_404(client, site):
    site["flash"].unpublish()
    assert client.get(f"/social/{site['flash'].pk}.png").status_code == 404


def glyph(font, char):
    return bytes(font.getmask(char))


def test_social_font_draws_chinese():
    assert social.find_font_path(), "install fonts-noto-cjk or set SOCIAL_IMAGE_FONT"
    font = social.load_font(64)
    assert font.getname()[0].endswith("SC")  # Simplified Chinese shapes
    missing = glyph(font, "\u0378")  # unassigned: the .notdef box
    for char in "量化":
        assert glyph(font, char) != missing, f"{char} renders as .notdef"
    assert glyph(font, "量") != glyph(font, "化")


def test_titles_wrap_per_character_in_chinese_and_per_word_in_english():
    font = social.load_font(64)
    chinese = social.wrap("量化" * 30, font, 600)
    assert len(chinese) > 1
    assert "".join(chinese) == "量化" * 30
    assert all(font.getlength(line) <= 600 for line in chinese)
    text = "Shared memory bank conflicts explained " * 3
    english = social.wrap(text, font, 600)
    assert len(english) > 1
    # Lines break between words: no word is cut in two.
    assert " ".join(english).split() == text.split()


def test_configured_font_comes_first_and_a_missing_font_is_logged(
    settings, monkeypatch, caplog
):
    settings.SOCIAL_IMAGE_FONT = "/no/such/font.ttc"
    assert social.font_candidates()[0] == "/no/such/font.ttc"
    monkeypatch.setattr(social, "DEFAULT_FONTS", [])
    social.find_font_path.cache_clear()
    try:
        with caplog.at_level("WARNING", logger="blog.social"):
            png = social.render_social_image("量化", "博客")
        assert "No CJK font" in caplog.text and "/no/such/font.ttc" in caplog.text
        assert Image.open(io.BytesIO(png)).size == (1200, 630)
    finally:
        social.find_font_path.cache_clear()


def test_preview_of_a_new_page_has_metadata_without_urls_of_its_own(rf, home):
    request = rf.get("/admin/pages/add/series/seriespage/2/preview/")
    request.is_preview = True
    series = SeriesPage(title="新系列", slug="new")  # never saved
    meta = page_meta({"request": request, "page": series, "site_name": "博客"})
    assert meta["title"] == "新系列"
    assert meta["image"] == ""
    assert [feed["url"] for feed in meta["feeds"]] == ["http://testserver/feed/"]
    assert json.loads(meta["json_ld"])["@graph"][0]["@type"] == "BreadcrumbList"
