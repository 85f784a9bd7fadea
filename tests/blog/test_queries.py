"""Listing pages run a fixed number of queries, whatever the number of posts.

Each page is requested with a few posts and again with many more; the count
must not grow. The numbers are what a page needs with an empty render cache:
site lookup, the page, its listing, tag prefetch, counts — see each test.
"""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import PostPageFactory, SeriesPageFactory


def make_posts(parent, count, start=0):
    for n in range(start, start + count):
        PostPageFactory(
            parent=parent,
            title=f"文章 {n}",
            slug=f"p{n}",
            date=datetime.date(2025, 1, 1) + datetime.timedelta(days=n),
            tags=[f"tag{n % 7}", "cuda"],
            body__0__paragraph__value=None,
        )


def queries(client, url):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


@pytest.fixture
def blog(home):
    cuda = SeriesPageFactory(parent=home, slug="cuda", ordering="newest")
    series = SeriesPageFactory(parent=cuda, slug="cute")
    SeriesPageFactory(parent=home, slug="notes")
    return {"home": home, "cuda": cuda, "series": series}


URLS = ["/", "/cuda/", "/cuda/cute/", "/tags/", "/tags/cuda/", "/archive/"]


@pytest.mark.parametrize("url", URLS)
def test_listing_query_count_does_not_grow_with_posts(client, blog, url):
    make_posts(blog["cuda"], 3)
    make_posts(blog["series"], 2, start=100)
    client.get(url)  # warm per-process caches (content types, site root paths)
    few = queries(client, url)

    make_posts(blog["cuda"], 30, start=200)
    make_posts(blog["series"], 20, start=300)
    many = queries(client, url)

    assert many == few, f"{url}: {few} queries with 5 posts, {many} with 55"
    # Site, root page, routed page (2), Wagtail's alias and view-restriction
    # checks (2), then the listing: count, rows, tags (one joined query),
    # sub-series or sections with their counts, header navigation.
    assert few <= 12, f"{url} runs {few} queries"


def test_post_page_query_count_does_not_grow_with_blocks(client, blog):
    PostPageFactory(parent=blog["cuda"], slug="short", tags=["cuda"])
    PostPageFactory(
        parent=blog["cuda"],
        slug="long",
        tags=["cuda", "gemm", "smem"],
        **{f"body__{i}__math__tex": f"x_{{{i}}}^2" for i in range(0, 40, 2)},
        **{f"body__{i}__code__code": f"int v{i} = {i};" for i in range(1, 40, 2)},
    )
    client.get("/cuda/short/")
    short = queries(client, "/cuda/short/")
    client.get("/cuda/long/")
    long = queries(client, "/cuda/long/")
    assert long == short
    # Site, root page, routed page (2), alias and view-restriction checks,
    # tags, breadcrumbs, header navigation.
    assert short <= 10
