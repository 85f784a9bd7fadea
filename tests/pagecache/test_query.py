"""The page cache keeps only the query strings a page reads, in one language.

Anyone can add a query string to a URL; a cache that kept a copy per query
string could be filled by anyone. Listings read `page` and search reads `q`
and `page`; they say so (``pagecache.query.reads_query``), and nothing else
makes a cache entry.
"""

import pytest
from django.core.cache import caches

from tests.factories import PostPageFactory, SeriesPageFactory


@pytest.fixture(autouse=True)
def page_cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600


@pytest.fixture
def stored(monkeypatch):
    """Record the lifetime of every page the page cache stores, by key."""
    cache = caches["default"]
    kept = {}
    set_page = cache.set

    def record(key, value, timeout=None, **kwargs):
        if key.startswith("pagecache:page:"):
            kept[key] = timeout
        return set_page(key, value, timeout, **kwargs)

    monkeypatch.setattr(cache, "set", record)
    return kept


@pytest.fixture
def site(home, tag_index, archive, monkeypatch):
    # Two posts a page, so the home page and the tag page have three pages.
    monkeypatch.setattr("blog.models.home.POSTS_PER_PAGE", 2)
    monkeypatch.setattr("blog.models.tags.POSTS_PER_PAGE", 2)
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    posts = [
        PostPageFactory(
            parent=notes,
            title=f"GPU 笔记 {n}",
            slug=f"gpu-{n}",
            tags=["cuda"],
        )
        for n in range(6)
    ]
    return {"home": home, "notes": notes, "posts": posts}


def titles(response) -> list[str]:
    """Return the posts the page's own listing shows (not the explorer's)."""
    html = response.content.decode()
    html = html[html.index("<main") : html.index("</main>")]
    return [f"GPU 笔记 {n}" for n in range(6) if f"GPU 笔记 {n}<" in html]


def test_junk_query_strings_make_no_cache_entry(client, site, stored):
    post = site["posts"][0].url
    assert client.get(post)["X-Page-Cache"] == "miss"
    assert len(stored) == 1
    junk = [
        *(f"{post}?q=junk{n}" for n in range(50)),
        *(f"{post}?page={n}" for n in range(2, 12)),
        *(f"{post}?utm_source=junk{n}" for n in range(5)),
        f"{post}?q=",
        # A listing's page numbers other than its links write them.
        "/?page=99999",
        "/?page=0",
        "/?page=two",
        "/?page=1",
        "/?page=2&page=3&page=2",
        "/?page=2&q=junk",
        "/tags/cuda/?page=02",
    ]
    for url in junk:
        response = client.get(url)
        assert response.status_code == 200, url
    assert len(stored) == 1
    # The post itself is still served from the cache.
    assert client.get(post)["X-Page-Cache"] == "hit"


def test_each_page_of_a_listing_is_cached_apart_and_shown_right(client, site, stored):
    pages = {url: titles(client.get(url)) for url in ("/", "/?page=2", "/?page=3")}
    assert len(stored) == 3
    assert all(len(shown) == 2 for shown in pages.values())
    assert len({title for shown in pages.values() for title in shown}) == 6
    for url, shown in pages.items():
        again = client.get(url)
        assert again["X-Page-Cache"] == "hit", url
        assert titles(again) == shown
    # Written otherwise, the same page is served the copy its link made.
    same = client.get("/?page=02")
    assert same["X-Page-Cache"] == "hit"
    assert titles(same) == pages["/?page=2"]
    assert len(stored) == 3


def test_a_listing_links_its_first_page_without_a_page_number(client, site):
    html = client.get("/?page=2").content.decode()
    assert 'rel="prev" href="/"' in html
    assert 'rel="next" href="?page=3"' in html


def test_search_results_are_kept_briefly_and_only_for_the_query_as_typed(
    client, site, stored, settings
):
    settings.PAGE_CACHE_SEARCH_SECONDS = 120
    response = client.get("/search/?q=GPU")
    assert "找到 6 篇文章" in response.content.decode()
    assert list(stored.values()) == [120]
    assert client.get("/search/?q=GPU")["X-Page-Cache"] == "hit"
    # Trimmed, or cut at the longest query search reads: not kept.
    client.get("/search/?q=%20GPU%20")
    client.get("/search/?q=" + "GPU%20" * 100)
    assert len(stored) == 1


def test_the_public_site_is_served_in_one_language_whatever_the_browser_asks(
    client, site
):
    post = site["posts"][0].url
    english = client.get(post, HTTP_ACCEPT_LANGUAGE="en")
    assert english["X-Page-Cache"] == "miss"
    chinese = client.get(post, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert chinese["X-Page-Cache"] == "hit"
    for response in (english, chinese):
        assert response["Content-Language"] == "zh-hans"
        assert "accept-language" not in response.get("Vary", "").lower()
        assert '<html lang="zh-CN">' in response.content.decode()
