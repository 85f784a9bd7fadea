"""The full-page cache: anonymous readers get cached pages, editors never do.

A cached page is served without a query and answers conditional requests;
what must stay private (drafts, previews, password pages, editors' views) is
never stored; a cache that fails is bypassed. What purges a page is in
tests/pagecache/test_changes.py.
"""

import gzip

import brotli
import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from wagtail.models import Page, PageViewRestriction

from pagecache.cache import (
    kept,
    page_cache,
)
from tests.blog.admin.editing import PREVIEW_BODY, form_data
from tests.pagecache.pages import PAGES, publish

pytestmark = pytest.mark.usefixtures("page_cache_on")


def test_a_cached_page_is_served_without_queries_and_answers_304(client, site):
    first = client.get("/cuda/cute/first/")
    assert first["X-Page-Cache"] == "miss"
    with CaptureQueriesContext(connection) as captured:
        again = client.get("/cuda/cute/first/")
    assert again["X-Page-Cache"] == "hit"
    assert len(captured) == 0
    assert again.content == first.content
    assert again["ETag"] == first["ETag"]
    assert again["Last-Modified"]

    current = client.get("/cuda/cute/first/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert current.status_code == 304
    assert current.content == b""
    since = client.get(
        "/cuda/cute/first/", HTTP_IF_MODIFIED_SINCE=again["Last-Modified"]
    )
    assert since.status_code == 304


def test_brotli_gzip_and_plain_copies_are_kept_apart(client, site):
    plain = client.get("/").content
    for accepted, encoding, decompress in [
        ("gzip, deflate, br", "br", brotli.decompress),
        ("gzip", "gzip", gzip.decompress),
    ]:
        client.get("/", HTTP_ACCEPT_ENCODING=accepted)
        copy = client.get("/", HTTP_ACCEPT_ENCODING=accepted)
        assert copy["X-Page-Cache"] == "hit"
        assert copy["Content-Encoding"] == encoding
        assert decompress(copy.content) == plain
    again = client.get("/")
    assert again["X-Page-Cache"] == "hit"
    assert "Content-Encoding" not in again
    assert again.content == plain


def test_editors_neither_read_nor_fill_the_cache(client, admin_client, site):
    post = site["first"]
    assert "第一篇" in client.get(post.url).content.decode()
    assert client.get(post.url)["X-Page-Cache"] == "hit"
    # Changed without a publish signal: only an uncached render shows it.
    Page.objects.filter(pk=post.pk).update(title="改过的标题")

    seen = admin_client.get(post.url)
    assert "X-Page-Cache" not in seen
    assert "改过的标题" in seen.content.decode()
    assert "第一篇" in client.get(post.url).content.decode()  # Not refilled.


def test_a_draft_and_its_preview_stay_private_until_published_in_the_admin(
    client, admin_client, site, django_capture_on_commit_callbacks
):
    post = site["first"]
    edit = reverse("wagtailadmin_pages:edit", args=(post.pk,))
    preview = reverse("wagtailadmin_pages:preview_on_edit", args=(post.pk,))
    data = {"slug": "first", "date": "2026-09-01", "updated": "2026-09-01"}
    client.get(post.url)

    with django_capture_on_commit_callbacks(execute=True):
        saved = admin_client.post(edit, form_data(PREVIEW_BODY, title="新标题", **data))
        admin_client.post(preview, form_data(PREVIEW_BODY, title="新标题", **data))
    assert saved.status_code == 302
    assert (
        "新标题"
        in admin_client.get(preview, {"in_preview_panel": "true"}).content.decode()
    )
    cached = client.get(post.url)
    assert cached["X-Page-Cache"] == "hit"
    assert "新标题" not in cached.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        published = admin_client.post(
            edit, form_data(PREVIEW_BODY, "publish", title="新标题", **data)
        )
    assert published.status_code == 302
    for url in [post.url, "/", "/cuda/cute/"]:
        assert "新标题" in client.get(url).content.decode(), url


def test_a_password_protected_page_is_never_cached(client, site):
    post = site["first"]
    PageViewRestriction.objects.create(
        page=post, restriction_type=PageViewRestriction.PASSWORD, password="s3cret"
    )
    for _ in range(2):
        response = client.get(post.url)
        assert response.get("X-Page-Cache") != "hit"
        html = response.content.decode()
        assert 'name="password"' in html  # the password form, served afresh
        assert "第一篇" not in html.split("</title>", 1)[1]


def test_other_query_parameters_bypass_the_cache_and_pages_share_a_purge(
    client, site, django_capture_on_commit_callbacks, monkeypatch
):
    # Two posts a page: home has a second page, which is cached apart.
    monkeypatch.setattr("blog.models.home.POSTS_PER_PAGE", 2)
    client.get("/?utm_source=x")
    assert "X-Page-Cache" not in client.get("/?utm_source=x")
    client.get("/?page=2")
    assert client.get("/?page=2")["X-Page-Cache"] == "hit"

    site["first"].title = "第一篇（修订）"  # home lists titles
    publish(site["first"], django_capture_on_commit_callbacks)
    assert client.get("/?page=2")["X-Page-Cache"] == "miss"


def test_a_failing_cache_is_bypassed(client, site, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr(page_cache(), "get_many", broken)
    response = client.get("/")
    assert response.status_code == 200
    assert "第一篇" in response.content.decode()


def test_a_failing_render_cache_is_bypassed(client, site, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    renders = caches["renders"]
    for method in ("get", "get_many", "set", "set_many"):
        monkeypatch.setattr(renders, method, broken)
    for url, shown in [
        ("/", "第一篇"),
        ("/archive/", "第二篇"),
        ("/feed/", "第一篇"),
        (PAGES["first"], "第一篇"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert shown in response.content.decode(), url


def test_the_page_cache_can_be_turned_off(client, site, settings):
    settings.PAGE_CACHE_SECONDS = 0
    client.get("/")
    again = client.get("/")
    assert again.status_code == 200
    assert "第一篇" in again.content.decode()
    assert "X-Page-Cache" not in again


def test_a_cached_page_asks_the_cache_twice_its_tokens_then_the_page(
    client, site, monkeypatch
):
    # The site serving it is held in the process under the site's token, which
    # the request reads with its path's token: two round trips to Redis.
    post = site["first"]
    assert client.get(post.url)["X-Page-Cache"] == "miss"
    asked, inside = [], []
    for alias in ("default", "renders"):
        cache = caches[alias]
        for name in ("get", "get_many"):
            read = getattr(cache, name)

            def counted(*args, read=read, call=f"{alias}.{name}", **kwargs):
                if not inside:  # a backend's get_many may call its own get
                    asked.append(call)
                inside.append(call)
                try:
                    return read(*args, **kwargs)
                finally:
                    inside.pop()

            monkeypatch.setattr(cache, name, counted)

    response = client.get(post.url)

    assert response["X-Page-Cache"] == "hit"
    assert "第一篇" in response.content.decode()
    assert asked == ["default.get_many", "default.get"]


@pytest.mark.django_db
def test_a_render_larger_than_the_bound_is_returned_but_not_kept(settings):
    settings.RENDER_CACHE_MAX_ENTRY_BYTES = 2000
    made = []

    def compute(size):
        made.append(size)
        return {"html": b"x" * size}

    for _ in range(2):
        assert kept(lambda: "test:small", lambda: compute(1000), 60)
        assert kept(lambda: "test:large", lambda: compute(3000), 60)

    assert made == [1000, 3000, 3000]


def test_render_cache_entries_expire(tmp_path):
    from django.conf import settings

    from config.settings.base import disk_caches

    # Redis's and local memory's are set alike; diskcache also evicts by size.
    assert settings.RENDER_CACHE_SECONDS == 30 * 86400
    assert caches["renders"].default_timeout == settings.RENDER_CACHE_SECONDS
    disk = disk_caches(tmp_path)
    assert disk["renders"]["TIMEOUT"] == settings.RENDER_CACHE_SECONDS
