"""Every public page runs a small, fixed number of queries, whatever the content.

Each page is requested on a small site and again after many more posts, tags,
series and blocks are added; the count must not grow, and must stay at or
under ten. Counts are taken with the page cache off (as in every test) and a
warm render cache, after one request has filled Wagtail's per-process caches.
The listings' figures (counts per section, tag and year) are kept in the render
cache as in production, and the site grows with its purges run, as a publish
would run them, so the grown site's first request counts again.
"""

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import PostPageFactory, SeriesPageFactory

MAX_QUERIES = 10


def make_posts(parent, count, start=0, tags=7):
    for n in range(start, start + count):
        PostPageFactory(
            parent=parent,
            title=f"文章 {n}",
            slug=f"p{n}",
            summary="共享内存与 warp 调度",
            date=datetime.date(2020, 1, 1) + datetime.timedelta(days=n * 40),
            tags=[f"tag{n % tags}", "cuda"],
            body__0__paragraph__value=None,
        )


def make_long_post(parent, slug, blocks):
    """A post of ``blocks`` alternating formulas and code, with three tags."""
    return PostPageFactory(
        parent=parent,
        slug=slug,
        tags=["cuda", "gemm", "smem"],
        **{f"body__{i}__math__tex": f"x_{{{i}}}^2" for i in range(0, blocks, 2)},
        **{f"body__{i}__code__code": f"int v{i} = {i};" for i in range(1, blocks, 2)},
    )


def queries(client, url):
    """Return the SQL of a second request of ``url`` (the first warms caches),
    and the page it answered."""
    assert client.get(url).status_code == 200, url
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    sql = [query["sql"] for query in captured.captured_queries]
    return sql, response.content.decode()


SERIES_INTRO = [
    {"type": "paragraph", "value": "<p>CuTe 的布局代数。</p>"},
    {"type": "code", "value": {"language": "cuda", "code": "auto t = make_tensor();"}},
    {"type": "math", "value": {"tex": "L = (4, 8):(8, 1)", "label": ""}},
    {
        "type": "callout",
        "value": {"kind": "tip", "title": "", "body": "<p>先读 layout。</p>"},
    },
]


@pytest.fixture(autouse=True)
def _listing_cache(settings):
    settings.LISTING_CACHE_SECONDS = 3600


@pytest.fixture
def blog(home, tag_index, archive):
    cuda = SeriesPageFactory(parent=home, slug="cuda", ordering="newest")
    # A series intro with code, math and a callout, rendered once and kept.
    series = SeriesPageFactory(parent=cuda, slug="cute", intro=SERIES_INTRO)
    notes = SeriesPageFactory(parent=home, slug="notes")
    make_posts(cuda, 3)
    make_posts(series, 2, start=100)
    make_long_post(series, "long", 4)
    return {"home": home, "cuda": cuda, "series": series, "notes": notes}


def grow(blog):
    """Add posts (more pages of every listing), tags, series and a longer body."""
    make_posts(blog["cuda"], 45, start=200, tags=30)
    make_posts(blog["series"], 35, start=300, tags=30)
    for n in range(5):
        nested = SeriesPageFactory(parent=blog["notes"], slug=f"s{n}")
        nested.save_revision().publish()  # as the admin does: purges /notes/
        make_posts(nested, 2, start=400 + 2 * n)
    blog["series"].get_children().filter(slug="long").delete()
    make_long_post(blog["series"], "long", 60)


URLS = [
    "/",
    "/?page=2",
    "/cuda/",
    "/cuda/?page=2",
    "/cuda/cute/",
    "/notes/",
    "/cuda/cute/long/",
    "/cuda/cute/p100/",
    "/cuda/p1/",
    "/tags/",
    "/tags/cuda/",
    "/tags/cuda/?page=2",
    "/archive/",
    "/search/?q=warp",
    "/feed/",
    "/cuda/feed/",
    "/tags/cuda/feed/",
    "/sitemap.xml",
    "/sitemap-pages.xml",
]


@pytest.mark.parametrize("url", URLS)
def test_query_count_is_small_and_does_not_grow_with_content(
    client, blog, url, django_capture_on_commit_callbacks
):
    # Page two exists only on the grown site: count it against page one.
    small_url = url.replace("?page=2", "")
    few, _ = queries(client, small_url)
    with django_capture_on_commit_callbacks(execute=True):
        grow(blog)
    many, html = queries(client, url)

    # The grown page shows what was added: posts 200-499, series, tags 7-29.
    added = r"/notes/s\d/|文章 [234]\d\d|/p[234]\d\d/|tag(?:[7-9]|[12]\d)\b"
    # A post page (bar its neighbours and related posts) and the sitemap index
    # (a list of files) show no other posts.
    if url not in ("/cuda/cute/p100/", "/cuda/p1/", "/sitemap.xml"):
        assert re.search(added, html), f"{url} shows nothing of the grown site"
    listing = "\n".join(many)
    assert len(many) == len(few), f"{url}: {len(few)} queries, then {listing}"
    assert len(many) <= MAX_QUERIES, f"{url} runs {len(many)}:\n{listing}"


@pytest.mark.parametrize("url", ["/cuda/cute/long/", "/cuda/p1/"])
def test_a_post_read_before_is_served_in_one_query(client, blog, url):
    # Routing finds the post with its body's digest, under which its render
    # is kept: nothing else is read from the database.
    sql, html = queries(client, url)
    assert len(sql) == 1, sql
    assert 'class="post-title"' in html
