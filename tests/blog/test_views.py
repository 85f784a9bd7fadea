"""Every public URL of the contract answers with the right content."""

import datetime
import re

import pytest
from django.urls import reverse
from wagtail.models import Page
from wagtail.rich_text import RichText

from blog.models import PostPage
from blog.seo import PageSitemap
from tests.factories import PostPageFactory, SeriesPageFactory


def main_of(response) -> str:
    """Return the page's <main>: what it lists, without the explorer beside it."""
    html = response.content.decode()
    if "<main" not in html:
        return html
    return html[html.index("<main") : html.index("</main>")]


@pytest.fixture
def site(home):
    """A small blog: a section, a nested series, tagged posts."""
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    notes = SeriesPageFactory(parent=home, title="Notes", slug="notes")
    csapp = SeriesPageFactory(parent=notes, title="CSAPP", slug="csapp")
    flash = PostPageFactory(
        parent=cuda,
        title="FlashAttention 笔记",
        slug="flash",
        summary="IO 感知的注意力。",
        date=datetime.date(2026, 9, 18),
        updated=datetime.date(2026, 9, 20),
        tags=["cuda", "attention"],
        body__0__heading__text="分块 $B_r$",
        body__1__math__tex=r"O = \operatorname{softmax}(QK^\top)V",
        body__2__code__code="__global__ void flash() {}",
    )
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
    return {
        "cuda": cuda,
        "notes": notes,
        "csapp": csapp,
        "flash": flash,
        "link": link,
        "old": old,
    }


def test_home_lists_recent_updates_and_sections(client, site):
    response = client.get("/")
    html = main_of(response)
    assert response.status_code == 200
    assert "最近更新" in html
    # Sorted by `updated`: FlashAttention (2026-09-20) before the 2024 post.
    assert (
        html.index("FlashAttention 笔记")
        < html.index("旧文章")
        < html.index("csapp-7-链接")
    )
    assert "2026年9月18日" in html
    assert 'CUDA</a> <span class="count">1 篇文章' in html
    assert 'Notes</a> <span class="count">1 篇文章' in html


def test_section_page_shows_count_cards_and_tags(client, site):
    response = client.get("/cuda/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "1 篇文章" in html
    assert "FlashAttention 笔记" in html
    assert "IO 感知的注意力。" in html
    assert "#cuda" in html and "#attention" in html


def test_nested_series_url_and_section_count_includes_it(client, site):
    assert client.get("/notes/csapp/").status_code == 200
    html = main_of(client.get("/notes/"))
    assert "CSAPP" in html
    assert (
        "csapp-7-链接" not in html
    )  # posts of sub-series are listed on the series page
    assert "1 篇文章" in html


def test_post_page_has_breadcrumbs_dates_tags_and_rendered_body(client, site):
    response = client.get("/cuda/flash/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<h1 class="post-title">FlashAttention 笔记</h1>' in html
    assert '<a href="/cuda/">CUDA</a>' in html
    assert "2026年9月18日" in html and "更新于" in html and "2026年9月20日" in html
    assert 'href="/tags/cuda/"' in html
    # Server-side KaTeX (HTML + MathML) and Pygments, no math script.
    assert 'class="katex-display"' in html and "<math" in html
    assert '<span class="kt">void</span>' in html
    # The only scripts are our own small files: no math script, nothing inline.
    assert "katex.min.js" not in html
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag or 'type="application/ld+json"' in tag, tag
    assert "/static/katex/katex.min.css" in html


def test_katex_and_pygments_styles_load_only_where_a_post_needs_them(client, home):
    plain = PostPageFactory(
        parent=home, slug="plain", body__0__paragraph__value=RichText("<p>纯文字。</p>")
    )
    code = PostPageFactory(parent=home, slug="code", body__0__code__code="int x;")
    math = PostPageFactory(parent=home, slug="math", body__0__math__tex="x^2")

    def styles(post):
        html = client.get(post.url).content.decode()
        return {
            "katex": "katex.min.css" in html and "KaTeX_Main-Regular.woff2" in html,
            "pygments": "pygments.css" in html,
        }

    assert styles(plain) == {"katex": False, "pygments": False}
    assert styles(code) == {"katex": False, "pygments": True}
    assert styles(math) == {"katex": True, "pygments": False}
    assert "katex.min.css" not in client.get("/").content.decode()


def test_unicode_slug_post_is_served(client, site):
    response = client.get("/notes/csapp/csapp-7-%E9%93%BE%E6%8E%A5/")
    assert response.status_code == 200
    assert "csapp-7-链接" in response.content.decode()


def test_tag_index_lists_tags_with_counts(client, site):
    html = client.get("/tags/").content.decode()
    assert '#cuda</a> <span class="count">2</span>' in html
    assert '#csapp</a> <span class="count">1</span>' in html


def test_tag_page_lists_its_posts_newest_first(client, site):
    response = client.get("/tags/cuda/")
    html = main_of(response)
    assert response.status_code == 200
    assert "2 篇文章" in html
    assert html.index("FlashAttention 笔记") < html.index("旧文章")
    assert "csapp-7-链接" not in html


def test_tag_page_and_feed_follow_a_post_to_its_new_date(
    client, site, django_capture_on_commit_callbacks
):
    def order(url):
        text = main_of(client.get(url))
        return text.index("旧文章") < text.index("FlashAttention 笔记")

    old = PostPage.objects.get(pk=site["old"].pk)
    old.date = old.updated = datetime.date(2026, 10, 1)
    # A draft's date is not the post's yet: the tag's page keeps its order.
    old.save_revision()
    assert not order("/tags/cuda/")

    with django_capture_on_commit_callbacks(execute=True):
        old.save_revision().publish()
    assert order("/tags/cuda/")
    assert order("/tags/cuda/feed/")

    # Saved without a revision and without touching its tags, as a script would.
    old = PostPage.objects.get(pk=old.pk)
    old.date = old.updated = datetime.date(2020, 1, 1)
    with django_capture_on_commit_callbacks(execute=True):
        old.save()
    assert not order("/tags/cuda/")
    assert not order("/tags/cuda/feed/")


def test_tags_are_case_insensitive(site):
    site["old"].tags.add("CUDA")
    assert sorted(t.name for t in site["old"].tags.all()) == ["cuda"]


def test_unknown_tag_is_404(client, site):
    assert client.get("/tags/no-such-tag/").status_code == 404


def test_archive_groups_by_year(client, site):
    html = client.get("/archive/").content.decode()
    assert html.index("2026 年") < html.index("2024 年") < html.index("2023 年")
    assert "FlashAttention 笔记" in html and "csapp-7-链接" in html


def test_archive_pages_hold_a_few_hundred_posts_and_keep_year_counts(
    client, home, archive, monkeypatch
):
    monkeypatch.setattr("blog.models.archive.ARCHIVE_PER_PAGE", 3)
    for n, year in enumerate([2026, 2025, 2025, 2025, 2024]):
        PostPageFactory(
            parent=home,
            title=f"归档文章{n}",
            slug=f"a{n}",
            date=datetime.date(year, 3, n + 1),
        )
    first = main_of(client.get("/archive/"))
    second = main_of(client.get("/archive/?page=2"))

    # Newest first: 0 (2026), then 3, 2 | 1 (2025), then 4 (2024).
    assert [f"归档文章{n}" in first for n in range(5)] == [1, 0, 1, 1, 0]
    assert [f"归档文章{n}" in second for n in range(5)] == [0, 1, 0, 0, 1]
    # 2025 is split across the pages; both head it with its three posts.
    assert first.count('2025 年 <span class="count">3 篇') == 1
    assert second.count('2025 年 <span class="count">3 篇') == 1
    assert 'href="?page=2"' in first and "第 2 / 2 页" in second


def test_drafts_are_not_listed(client, site):
    site["flash"].unpublish()
    for url in ["/", "/cuda/", "/tags/cuda/", "/archive/"]:
        assert "FlashAttention 笔记" not in client.get(url).content.decode(), url
    assert client.get("/cuda/flash/").status_code == 404


def test_missing_page_is_friendly_404(client, site):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "页面不存在" in response.content.decode()


def test_empty_site_works(client, home):
    """A freshly migrated database is a working, empty site."""
    assert client.get("/").status_code == 200
    assert "还没有文章" in client.get("/").content.decode()
    assert client.get("/tags/").status_code == 200
    assert client.get("/archive/").status_code == 200


def test_admin_answers(client, home):
    assert client.get(reverse("wagtailadmin_home")).status_code == 302


def test_unchanged_content_is_never_rendered_twice(client, site):
    """The second view of a post is served from the render cache."""
    from django.core.cache import caches

    from rendering import cache

    caches["renders"].clear()
    cache.reset_stats()
    first = client.get("/cuda/flash/").content
    rendered = cache.render_count()
    assert rendered > 0  # KaTeX and Pygments ran for the first view

    second = client.get("/cuda/flash/").content
    assert cache.render_count() == rendered  # nothing rendered again
    assert second == first


@pytest.mark.parametrize("url", ["/", "/cuda/", "/cuda/flash/", "/tags/cuda/"])
def test_a_current_copy_is_answered_with_304_and_a_stale_one_in_full(client, site, url):
    first = client.get(url)
    assert first.status_code == 200
    assert client.get(url)["ETag"] == first["ETag"]  # same page, same tag

    current = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert current.status_code == 304
    assert current.content == b""
    gzipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped["Content-Encoding"] == "gzip"
    revalidated = client.get(
        url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=gzipped["ETag"]
    )
    assert revalidated.status_code == 304

    site["flash"].title = "FlashAttention 2 笔记"
    site["flash"].save_revision().publish()
    stale = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert stale.status_code == 200
    assert "FlashAttention 2 笔记" in stale.content.decode()
    assert stale["ETag"] != first["ETag"]


def test_sitemap_lists_live_pages_and_robots_names_it(client, site):
    site["old"].unpublish()
    index = client.get("/sitemap.xml").content.decode()
    assert "<sitemapindex" in index
    assert "<loc>http://testserver/sitemap-pages.xml</loc>" in index
    xml = client.get("/sitemap-pages.xml").content.decode()
    # Full URLs on the Wagtail Site's address; a site left as `migrate` made it
    # stands for WAGTAILADMIN_BASE_URL (testserver in the test settings).
    assert "<loc>http://testserver/cuda/flash/</loc>" in xml
    assert "<loc>http://testserver/notes/csapp/</loc>" in xml
    assert "/old/" not in xml
    robots = client.get("/robots.txt")
    assert robots["Content-Type"].startswith("text/plain")
    assert "Sitemap: http://testserver/sitemap.xml" in robots.content.decode()


def test_sitemap_files_hold_a_few_hundred_pages_each(client, home, settings):
    settings.LISTING_CACHE_SECONDS = 3600
    for n in range(PageSitemap.limit + 5):
        PostPageFactory(parent=home, slug=f"p{n}", body=[])
    pages = Page.objects.live().descendant_of(home, inclusive=True).count()
    assert PageSitemap.limit < pages < 2 * PageSitemap.limit

    index = client.get("/sitemap.xml").content.decode()
    assert "sitemap-pages.xml</loc>" in index
    assert "sitemap-pages.xml?p=2</loc>" in index
    assert "?p=3" not in index
    first = client.get("/sitemap-pages.xml").content.decode()
    second = client.get("/sitemap-pages.xml?p=2").content.decode()
    assert first.count("<url>") == PageSitemap.limit
    assert second.count("<url>") == pages - PageSitemap.limit
    assert client.get("/sitemap-pages.xml?p=3").status_code == 404


def test_favicon_ico_points_at_the_linked_icon(client, home):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")
    assert 'rel="icon" href="/static/favicon.svg"' in client.get("/").content.decode()


def test_the_sitemap_index_is_kept_until_a_publish_adds_a_file(
    client, home, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.LISTING_CACHE_SECONDS = 3600  # kept, as in production
    monkeypatch.setattr(PageSitemap, "limit", 2)
    pages = Page.objects.live().descendant_of(home, inclusive=True).count()
    files = -(-pages // 2)
    index = client.get("/sitemap.xml")
    assert index["Content-Type"] == "application/xml"
    assert index["X-Robots-Tag"] == "noindex, noodp, noarchive"
    assert index.content.decode().count("<sitemap>") == files
    assert client.get("/sitemap.xml").content == index.content

    with django_capture_on_commit_callbacks(execute=True):
        for n in range(2):
            post = PostPageFactory(parent=home, slug=f"new-{n}", body=[], live=False)
            post.save_revision().publish()
    again = client.get("/sitemap.xml").content.decode()
    assert again.count("<sitemap>") == files + 1
    assert f"sitemap-pages.xml?p={files + 1}</loc>" in again
