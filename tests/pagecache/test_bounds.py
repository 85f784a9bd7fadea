"""What anonymous requests can make the caches keep is bounded, and keyed by
what was served: the site, the path within the application, the real query."""

import datetime
import json
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blog.models import PostPage
from pagecache.cache import page_cache, path_token_key, purge_paths
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.search.posts import make_post


@pytest.fixture(autouse=True)
def caches_on(settings):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]


def test_made_up_paths_mint_no_tokens(client, home):
    paths = [f"/no-such-post-{n}/" for n in range(50)] + ["/cuda/../x/", "/%E4%B8%AD/"]
    for path in paths:
        assert client.get(path).status_code in (404, 301)
    kept = page_cache().get_many([path_token_key(path) for path in paths])
    assert kept == {}


def test_a_page_kept_mints_its_paths_token(client, home):
    post = PostPageFactory(parent=home, title="共享内存", slug="smem")
    client.get(post.url)
    assert page_cache().get(path_token_key(post.url))
    assert client.get(post.url)["X-Page-Cache"] == "hit"


def test_host_variants_share_one_copy_of_a_page(client, home):
    post = PostPageFactory(parent=home, title="共享内存", slug="smem")
    hosts = ["localhost", "LOCALHOST", "localhost.", "localhost:40001", "LocalHost.:9"]
    seen = [client.get(post.url, HTTP_HOST=host)["X-Page-Cache"] for host in hosts]
    assert seen == ["miss"] + ["hit"] * (len(hosts) - 1)


def test_a_script_name_plants_nothing_that_outlives_an_unpublish(
    client, home, django_capture_on_commit_callbacks
):
    # An old post in a series: its unpublish purges its own paths, not the site.
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    for n in range(8):
        PostPageFactory(parent=cuda, title=f"新文 {n}", slug=f"new-{n}")
    post = PostPageFactory(
        parent=notes, title="即将撤下", slug="going", date=datetime.date(2001, 1, 1)
    )
    planted = client.get(post.url, SCRIPT_NAME="/planted")
    assert planted.status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        PostPage.objects.get(pk=post.pk).unpublish()
    for script_name in ("/planted", ""):
        again = client.get(post.url, SCRIPT_NAME=script_name)
        assert again.status_code == 404
        assert "即将撤下" not in again.content.decode()


def search(client, query):
    response = client.get("/search/", {"q": query, "format": "json"})
    return json.loads(response.content)


def test_a_query_is_never_answered_with_another_querys_results(client, home):
    make_post(home, "Warp 调度", paragraph="每个 warp 有 64 个线程", slug="warp")
    make_post(home, "另一篇", paragraph="064 号寄存器", slug="reg")
    first = search(client, "064")
    second = search(client, "64")
    assert first["query"] == "064"
    assert second["query"] == "64"
    assert [r["title"] for r in second["results"]] == ["Warp 调度"]
    # Numbers are still one key where a page number is meant.
    listing = client.get("/search/", {"q": "64", "page": "01"})
    assert listing.status_code == 200


def search_queries(query) -> int:
    with CaptureQueriesContext(connection) as captured:
        PostPage.search_ids(query)
    return sum("wagtailsearch_indexentry" in q["sql"] for q in captured)


def test_a_search_that_finds_nothing_is_not_kept(home):
    make_post(home, "Warp 调度", paragraph="每个 warp 有 64 个线程", slug="warp")
    assert search_queries("tensor") >= 1
    assert search_queries("tensor") >= 1  # asked again: searched again
    assert search_queries("warp") >= 1
    assert search_queries("warp") == 0  # found: kept


def test_a_kept_search_expires_with_the_results_page(home, settings):
    settings.PAGE_CACHE_SEARCH_SECONDS = 1
    make_post(home, "Warp 调度", paragraph="每个 warp 有 64 个线程", slug="warp")
    assert search_queries("warp") >= 1
    assert search_queries("warp") == 0
    time.sleep(1.5)
    assert search_queries("warp") >= 1


def test_a_page_rendered_while_it_is_purged_is_not_served_afterwards(
    client, home, monkeypatch, django_capture_on_commit_callbacks
):
    """The first copy of a path (no token yet) is keyed before it is rendered, so
    a purge made meanwhile (an editor publishing) orphans it."""
    post = PostPageFactory(parent=home, title="渲染中被清除", slug="racing")
    serve = PostPage.serve
    purged = []

    def serve_while_purged(page, request, *args, **kwargs):
        response = serve(page, request, *args, **kwargs)
        if not purged:
            with django_capture_on_commit_callbacks(execute=True):
                purge_paths([post.url])
            purged.append(True)
        return response

    monkeypatch.setattr(PostPage, "serve", serve_while_purged)
    assert client.get(post.url)["X-Page-Cache"] == "miss"
    assert client.get(post.url)["X-Page-Cache"] == "miss"  # the racing copy is gone
    assert client.get(post.url)["X-Page-Cache"] == "hit"
