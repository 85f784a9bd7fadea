"""Changes purge the cached pages that show them, and only those.

Each purge test fills the cache with every public page, makes one change the
way an editor would (publish, unpublish, move, delete, retag), then checks
that the pages showing the change answer fresh and the others are still
served from the cache.
"""

import datetime
import re
import secrets
import time

import pytest
import wagtail_factories
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from blog.models import PostPage
from pagecache.cache import (
    page_cache,
    page_tokens,
    purge_all,
    purge_all_at_end,
    purge_paths,
    purges_pending,
    site_token_key,
    tokens_read_once,
)
from tests.factories import PostPageFactory
from tests.pagecache.pages import PAGES, fill, publish, served_from_cache

pytestmark = pytest.mark.usefixtures("page_cache_on")


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
