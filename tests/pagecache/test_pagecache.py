"""The full-page cache: anonymous readers get cached pages, changes purge them.

Each purge test fills the cache with every public page, makes one change the
way an editor would (publish, unpublish, move, delete, retag), then checks
that the pages showing the change answer fresh and the others are still
served from the cache.
"""

import datetime
import gzip
import re
import secrets
import time

import brotli
import pytest
import wagtail_factories
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from wagtail.models import Page, PageViewRestriction

from blog.models import PostPage
from pagecache.cache import (
    kept,
    page_cache,
    page_tokens,
    purge_all,
    purge_all_at_end,
    purge_paths,
    purges_pending,
    site_token_key,
    tokens_read_once,
)
from tests.blog.admin.editing import PREVIEW_BODY, form_data
from tests.factories import PostPageFactory, SeriesPageFactory


@pytest.fixture(autouse=True)
def page_cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600


@pytest.fixture
def site(home, tag_index, archive):
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda", ordering="newest")
    cute = SeriesPageFactory(parent=cuda, title="CuTe 系列", slug="cute")
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    posts = {
        "first": PostPageFactory(
            parent=cute, title="第一篇", slug="first", tags=["gemm"]
        ),
        "second": PostPageFactory(
            parent=cute, title="第二篇", slug="second", tags=["cuda"]
        ),
        "third": PostPageFactory(
            parent=cute, title="第三篇", slug="third", tags=["cuda"]
        ),
        "elsewhere": PostPageFactory(
            parent=notes, title="CSAPP 笔记", slug="csapp", tags=["csapp"]
        ),
    }
    return {"home": home, "cuda": cuda, "cute": cute, "notes": notes, **posts}


@pytest.fixture
def older(site, monkeypatch):
    """Make the series' posts older than the one recent post beside every page.

    The explorer then shows them only on the pages under their series, so a
    change to one purges those, not every page.
    """
    monkeypatch.setattr("blog.models.post.RECENT_COUNT", 1)
    old = datetime.date(2000, 1, 1)
    posts = [site[name].pk for name in ("first", "second", "third")]
    PostPage.objects.filter(pk__in=posts).update(date=old, updated=old)
    return {
        **site,
        **{
            name: PostPage.objects.get(pk=site[name].pk)
            for name in ("first", "second", "third")
        },
    }


# Every public page of the site above, by what it is.
PAGES = {
    "home": "/",
    "section": "/cuda/",
    "series": "/cuda/cute/",
    "series feed": "/cuda/cute/feed/",
    "section feed": "/cuda/feed/",
    "first": "/cuda/cute/first/",
    "second": "/cuda/cute/second/",
    "third": "/cuda/cute/third/",
    "tag index": "/tags/",
    "tag cuda": "/tags/cuda/",
    "tag gemm": "/tags/gemm/",
    "tag csapp": "/tags/csapp/",
    "archive": "/archive/",
    "feed": "/feed/",
    "sitemap": "/sitemap.xml",
    "search": "/search/?q=GPU",
    "other section": "/notes/",
    "other post": "/notes/csapp/",
}


def fill(client):
    """Request every page until it is cached; return their HTML by name."""
    html = {}
    for name, url in PAGES.items():
        client.get(url)
        response = client.get(url)
        assert response["X-Page-Cache"] == "hit", url
        html[name] = response.content.decode()
    return html


def served_from_cache(client):
    """Return the names of the pages still answered from the cache."""
    return {
        name
        for name, url in PAGES.items()
        if client.get(url).get("X-Page-Cache") == "hit"
    }


def publish(page, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        page.save_revision().publish()


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


def test_publishing_a_post_purges_exactly_the_pages_that_show_it(
    client, older, django_capture_on_commit_callbacks
):
    site = older
    before = fill(client)
    post = PostPage.objects.get(pk=site["second"].pk)
    post.title = "第二篇（修订）"
    publish(post, django_capture_on_commit_callbacks)

    # The post itself, its listings, the series posts around it, its tag.
    assert served_from_cache(client) == {
        "tag gemm",
        "tag csapp",
        "other section",
        "other post",
    }
    for name in ["home", "section", "series", "first", "third", "tag cuda", "archive"]:
        html = client.get(PAGES[name]).content.decode()
        assert "第二篇（修订）" in html, name
        assert "第二篇（修订）" not in before[name]
    assert "第二篇（修订）" in client.get("/feed/").content.decode()


def test_publishing_a_new_post_lists_it_and_updates_the_series_count(
    client, site, django_capture_on_commit_callbacks
):
    fill(client)
    new = PostPageFactory(
        parent=site["cute"], title="第四篇", slug="fourth", tags=["gemm"], live=False
    )
    publish(new, django_capture_on_commit_callbacks)

    for name in ["home", "series", "section", "tag gemm", "archive", "feed", "search"]:
        assert "第四篇" in client.get(PAGES[name]).content.decode(), name
    # Every post of the series says "第 k 篇，共 4 篇" now.
    assert "共 4 篇" in client.get(PAGES["first"]).content.decode()
    # A new post is among the recent posts beside every page: the explorer
    # every page loads lists it (blog.explorer), the other pages stay cached.
    other = client.get(PAGES["other post"])
    assert other["X-Page-Cache"] == "hit"
    fragment = re.search(r'data-explorer="([^"]+)"', other.content.decode())[1]
    recent = client.get(fragment).content.decode().split('class="recent-updates"')[1]
    assert 'href="/cuda/cute/fourth/"' in recent


def counts(client):
    """Return the figures the listings show: section, series, tag and year counts."""
    home = client.get("/").content.decode()
    tags = client.get("/tags/").content.decode()
    archive = client.get("/archive/").content.decode()
    return {
        "home: CUDA": re.search(r">CUDA</a> <span class=\"count\">(\d+) 篇", home)[1],
        "section": re.search(r"(\d+) 篇文章", client.get("/cuda/").content.decode())[1],
        "series": re.search(
            r"(\d+) 篇文章", client.get("/cuda/cute/").content.decode()
        )[1],
        "tag cuda": re.search(r"#cuda</a> <span class=\"count\">(\d+)", tags)[1],
        "year": re.search(r"年 <span class=\"count\">(\d+) 篇", archive)[1],
    }


def test_listing_counts_are_kept_until_a_change_purges_them(
    client, site, django_capture_on_commit_callbacks
):
    assert counts(client) == {
        "home: CUDA": "3",
        "section": "3",
        "series": "3",
        "tag cuda": "2",
        "year": "4",
    }
    # A post written straight to the database, bypassing publishing, purges
    # nothing: the listings keep the figures they have (with the page cache
    # off too), which shows they are not counted on every request.
    with override_settings(PAGE_CACHE_SECONDS=0):
        PostPageFactory(parent=site["cute"], slug="unseen", tags=["cuda"])
        assert counts(client)["series"] == "3"

        new = PostPageFactory(
            parent=site["cute"], slug="fourth", tags=["cuda"], live=False
        )
        publish(new, django_capture_on_commit_callbacks)
        assert counts(client) == {
            "home: CUDA": "5",
            "section": "5",
            "series": "5",
            "tag cuda": "4",
            "year": "6",
        }
        with django_capture_on_commit_callbacks(execute=True):
            site["second"].unpublish()
        assert counts(client) == {
            "home: CUDA": "4",
            "section": "4",
            "series": "4",
            "tag cuda": "3",
            "year": "5",
        }


def test_a_request_reads_each_token_once_and_the_next_reads_them_again(
    client, site, monkeypatch
):
    cache = page_cache()
    asked = []
    get_many = cache.get_many

    def counted(keys, *args, **kwargs):
        asked.extend(keys)
        return get_many(keys, *args, **kwargs)

    monkeypatch.setattr(cache, "get_many", counted)
    with override_settings(PAGE_CACHE_SECONDS=0):
        # The home page keeps three figures and its body, each under the site's
        # token: one read of it, one round trip to Redis.
        client.get("/")
        assert site_token_key() in asked
        assert len(asked) == len(set(asked))

        # Another server's purge, between two requests: the next one reads
        # the new token and counts again.
        assert counts(client)["series"] == "3"
        PostPageFactory(parent=site["cute"], slug="unseen", tags=["cuda"])
        assert counts(client)["series"] == "3"
        cache.delete(site_token_key())
        assert counts(client)["series"] == "4"


def test_a_purge_made_during_a_request_is_seen_by_the_rest_of_it(
    site, django_capture_on_commit_callbacks
):
    with tokens_read_once():
        site_token, path_token = page_tokens(site["first"].url_path)
        assert page_tokens(site["first"].url_path) == [site_token, path_token]
        with django_capture_on_commit_callbacks(execute=True):
            purge_paths(["/cuda/cute/first/"])
        assert page_tokens(site["first"].url_path)[0] == site_token
        assert page_tokens(site["first"].url_path)[1] != path_token
        with django_capture_on_commit_callbacks(execute=True):
            purge_all()
        assert page_tokens(site["first"].url_path)[0] != site_token


def test_search_results_are_kept_until_a_change_purges_them(
    client, site, django_capture_on_commit_callbacks
):
    def found():
        html = client.get(PAGES["search"]).content.decode()
        return set(re.findall(r"第.篇|CSAPP 笔记", html))

    with override_settings(PAGE_CACHE_SECONDS=0):
        assert found() == {"第一篇", "第二篇", "第三篇", "CSAPP 笔记"}
        # Written straight to the database and the search index, bypassing
        # publishing: nothing is purged, and the kept results stand.
        PostPageFactory(parent=site["notes"], title="第五篇", slug="unseen")
        assert "第五篇" not in found()

        new = PostPageFactory(parent=site["notes"], slug="sixth", live=False)
        new.title = "第六篇"
        publish(new, django_capture_on_commit_callbacks)
        assert {"第五篇", "第六篇"} <= found()


def test_unpublishing_a_post_removes_it_everywhere(
    client, site, django_capture_on_commit_callbacks
):
    fill(client)
    with django_capture_on_commit_callbacks(execute=True):
        site["third"].unpublish()

    assert client.get(PAGES["third"]).status_code == 404
    shown = ["home", "series", "section", "tag cuda", "archive", "feed", "second"]
    for name in [*shown, "search"]:
        assert "第三篇" not in client.get(PAGES[name]).content.decode(), name
    assert "/cuda/cute/third/" not in client.get("/sitemap.xml").content.decode()


def test_retagging_a_post_purges_its_old_and_new_tag_pages(
    client, older, django_capture_on_commit_callbacks
):
    site = older
    fill(client)
    post = site["first"]
    post.tags.set(["cuda"])
    publish(post, django_capture_on_commit_callbacks)

    assert client.get(PAGES["tag gemm"]).status_code == 404  # No post has it now.
    assert "第一篇" in client.get(PAGES["tag cuda"]).content.decode()
    assert "gemm" not in client.get(PAGES["tag index"]).content.decode()
    assert "tag csapp" in served_from_cache(client)


def test_moving_a_post_purges_its_old_and_new_places(
    client, older, django_capture_on_commit_callbacks
):
    site = older
    fill(client)
    with django_capture_on_commit_callbacks(execute=True):
        site["second"].move(site["notes"], pos="last-child")

    # Wagtail answers the old URL with a redirect to the new one.
    assert client.get(PAGES["second"])["Location"] == "/notes/second/"
    assert client.get("/notes/second/").status_code == 200
    assert "第二篇" not in client.get(PAGES["series"]).content.decode()
    assert "第二篇" in client.get(PAGES["other section"]).content.decode()
    # The series has two posts left: the first now leads to the third.
    first = client.get(PAGES["first"]).content.decode()
    assert "共 2 篇" in first and "第三篇" in first and "第二篇" not in first


def test_renaming_a_post_slug_purges_the_pages_that_link_to_it(
    client, site, django_capture_on_commit_callbacks
):
    linking = site["elsewhere"]
    linking.body = [
        (
            "paragraph",
            f'<p>见 <a linktype="page" id="{site["first"].pk}">第一篇</a>。</p>',
        )
    ]
    publish(linking, django_capture_on_commit_callbacks)
    assert (
        'href="/cuda/cute/first/"' in client.get(PAGES["other post"]).content.decode()
    )
    fill(client)

    post = site["first"]
    post.slug = "first-renamed"
    publish(post, django_capture_on_commit_callbacks)

    assert client.get("/cuda/cute/first/")["Location"] == "/cuda/cute/first-renamed/"
    assert (
        'href="/cuda/cute/first-renamed/"'
        in client.get(PAGES["other post"]).content.decode()
    )


def test_deleting_a_post_purges_the_pages_that_showed_it(
    client, older, django_capture_on_commit_callbacks
):
    site = older
    fill(client)
    with django_capture_on_commit_callbacks(execute=True):
        site["second"].delete()

    assert client.get(PAGES["second"]).status_code == 404
    for name in ["home", "series", "tag cuda", "archive", "feed", "first", "third"]:
        assert "第二篇" not in client.get(PAGES[name]).content.decode(), name
    assert "other post" in served_from_cache(client)


def test_renaming_a_top_level_section_purges_every_page(
    client, site, django_capture_on_commit_callbacks
):
    fill(client)
    section = site["notes"]
    section.title = "读书笔记"
    publish(section, django_capture_on_commit_callbacks)

    assert served_from_cache(client) == set()
    assert "读书笔记" in client.get(PAGES["first"]).content.decode()  # The header.


def test_a_password_protected_page_is_never_cached(client, site):
    post = site["first"]
    PageViewRestriction.objects.create(
        page=post, restriction_type=PageViewRestriction.PASSWORD, password="s3cret"
    )
    for _ in range(2):
        response = client.get(post.url)
        assert response.get("X-Page-Cache") != "hit"
        assert "第一篇" not in response.content.decode().split("</title>", 1)[1]


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
    assert "X-Page-Cache" not in client.get("/")


def test_scheduled_publishing_purges_like_a_publish(
    client, site, django_capture_on_commit_callbacks
):
    fill(client)
    post = site["third"]
    post.title = "第三篇（定时）"
    revision = post.save_revision()
    revision.approved_go_live_at = timezone.now() - datetime.timedelta(minutes=1)
    revision.save()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_scheduled")
    assert "第三篇（定时）" in client.get(PAGES["series"]).content.decode()


# The rendered body is kept too (PostPage.rendered), and dropped with the page.


def test_a_rendered_body_follows_a_moved_link_target(
    client, site, settings, django_capture_on_commit_callbacks
):
    settings.PAGE_CACHE_SECONDS = 0
    linking = site["elsewhere"]
    target = site["first"]
    linking.body = [
        ("paragraph", f'<p>见 <a linktype="page" id="{target.pk}">第一篇</a>。</p>')
    ]
    publish(linking, django_capture_on_commit_callbacks)
    assert 'href="/cuda/cute/first/"' in client.get(linking.url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        target.move(site["notes"], pos="last-child")
    assert 'href="/notes/first/"' in client.get(linking.url).content.decode()


def test_replacing_an_image_renders_its_posts_again(
    client, site, django_capture_on_commit_callbacks
):
    image = wagtail_factories.ImageFactory(title="Roofline 模型")
    post = site["first"]
    post.body = [("image", {"image": image, "alt": "", "caption": ""})]
    publish(post, django_capture_on_commit_callbacks)
    assert 'alt="Roofline 模型"' in client.get(post.url).content.decode()
    client.get(post.url)

    image.title = "Roofline（修订）"
    with django_capture_on_commit_callbacks(execute=True):
        image.save()
    assert 'alt="Roofline（修订）"' in client.get(post.url).content.decode()


def test_a_purge_made_while_redis_was_cut_off_is_made_once_it_answers(
    client, site, settings, forwarder, django_capture_on_commit_callbacks
):
    # The page cache in a real Redis, reached through a link the test can cut.
    link = forwarder(("127.0.0.1", 6379))
    link.open()
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": f"redis://127.0.0.1:{link.port}/0",
            "KEY_PREFIX": f"purge-test-{secrets.token_hex(4)}",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
        "renders": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "purge-test",
        },
    }
    url = PAGES["first"]
    client.get(url)
    assert client.get(url)["X-Page-Cache"] == "hit"

    link.cut()
    post = site["first"]
    post.title = "改过的标题"
    publish(post, django_capture_on_commit_callbacks)  # its purge cannot reach Redis
    assert purges_pending()
    away = client.get(url)
    assert "改过的标题" in away.content.decode()  # rendered afresh meanwhile

    # Redis answers again, with the old copy still in it: the purge is made.
    link.open()
    deadline = time.monotonic() + 10
    while purges_pending() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not purges_pending()
    back = client.get(url)
    assert back["X-Page-Cache"] == "miss"
    assert "改过的标题" in back.content.decode()
    assert client.get(url)["X-Page-Cache"] == "hit"


def test_changes_made_purging_all_at_end_purge_every_page_once_at_the_end(
    client, site, django_capture_on_commit_callbacks
):
    """What an import does: many changes, one purge of everything after them."""
    fill(client)
    post = site["second"]
    with django_capture_on_commit_callbacks(execute=True), purge_all_at_end():
        post.title = "第二篇（导入）"
        with CaptureQueriesContext(connection) as publishing:
            post.save_revision().publish()
        post.tags.add("new-tag")
        post.save()
        # Nothing purged yet, and no query spent working out what shows the post.
        assert served_from_cache(client) == set(PAGES)
        assert not any("reference" in q["sql"].lower() for q in publishing)
    assert served_from_cache(client) == set()
    assert "第二篇（导入）" in client.get(PAGES["home"]).content.decode()


def test_a_block_purging_all_at_end_that_changed_nothing_purges_nothing(
    client, site, django_capture_on_commit_callbacks
):
    """A second import of the same vault leaves the cached pages alone."""
    fill(client)
    with django_capture_on_commit_callbacks(execute=True), purge_all_at_end():
        site["second"].refresh_from_db()
    assert served_from_cache(client) == set(PAGES)


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
