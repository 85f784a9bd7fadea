"""A change made while the page cache is unreachable is not lost when it comes back.

The cache comes back with its old entries (Redis paused, or cut off from the
server, rather than restarted), and the server that made the change may have
restarted meanwhile, forgetting what it had not purged. The purge is in the
database, written with the change, and the next server to read the cache
makes it first: the reader gets the page as it now is, never the old copy.
"""

import os
import secrets
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.core.management import call_command
from wagtail.models import PageViewRestriction

import pagecache.cache
from blog.models import PostPage
from pagecache.models import PendingPurge
from tests.factories import PostPageFactory


class UnreachableCache(LocMemCache):
    """A local-memory cache that can be cut off, as production's Redis cache fails.

    Cut off, it reads as a miss and drops what is written
    (``config.cache.ForgivingRedisCache``), and a delete — a purge — fails.
    """

    down = False

    def get(self, key, default=None, version=None):
        return default if self.down else super().get(key, default, version)

    def add(self, *args, **kwargs):
        return False if self.down else super().add(*args, **kwargs)

    def set(self, *args, **kwargs):
        if not self.down:
            super().set(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.down:
            raise ConnectionError("the cache is unreachable")
        return super().delete(*args, **kwargs)


@pytest.fixture(autouse=True)
def page_cache_on(settings, monkeypatch):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.LISTING_CACHE_SECONDS = 3600
    settings.PAGE_CACHE_PURGE_CHECK_SECONDS = 1.0  # production's
    restart(monkeypatch)  # and the process's own state is left as it was
    yield
    UnreachableCache.down = False


@pytest.fixture
def cache_to_cut(settings):
    """The page cache, which the test can cut off: ``UnreachableCache.down``."""
    name = f"outage-{secrets.token_hex(4)}"
    settings.CACHES = {
        "default": {"BACKEND": f"{__name__}.UnreachableCache", "LOCATION": name},
        "renders": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"{name}-renders",
        },
    }


def restart(monkeypatch):
    """Play the server's restart: a new process knows no pending purge."""
    monkeypatch.setattr(pagecache.cache, "_state", pagecache.cache.ProcessState())
    pagecache.cache._own.clear()


def cached(client, url):
    """Request ``url`` until it is served from the cache; return its HTML."""
    client.get(url)
    response = client.get(url)
    assert response["X-Page-Cache"] == "hit"
    return response.content.decode()


def test_a_page_made_private_while_the_cache_was_unreachable_is_not_served_from_it(
    client, home, cache_to_cut, monkeypatch, django_capture_on_commit_callbacks
):
    post = PostPageFactory(parent=home, title="将要私密的文章", slug="soon-private")
    assert "将要私密的文章" in cached(client, post.url)

    UnreachableCache.down = True
    with django_capture_on_commit_callbacks(execute=True):
        PageViewRestriction.objects.create(
            page=post, restriction_type=PageViewRestriction.LOGIN
        )
    restart(monkeypatch)
    UnreachableCache.down = False  # back, with the public copy still in it

    response = client.get(post.url)
    assert response.status_code == 302
    assert "/login/" in response["Location"]
    assert "将要私密的文章" not in response.content.decode()
    assert not PendingPurge.objects.exists()


def test_a_text_changed_while_the_cache_was_unreachable_is_served_once_it_answers(
    client, home, cache_to_cut, monkeypatch, django_capture_on_commit_callbacks
):
    post = PostPageFactory(parent=home, title="旧的标题", slug="retitled")
    assert "旧的标题" in cached(client, post.url)
    assert "旧的标题" in cached(client, "/")

    UnreachableCache.down = True
    post.title = "新的标题"
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    assert PendingPurge.objects.exists()
    # The server that published knows: it serves nothing from the cache.
    UnreachableCache.down = False
    meanwhile = client.get(post.url)
    assert "X-Page-Cache" not in meanwhile
    assert "新的标题" in meanwhile.content.decode()

    UnreachableCache.down = True
    restart(monkeypatch)
    UnreachableCache.down = False
    for url in [post.url, "/"]:
        html = client.get(url).content.decode()
        assert "新的标题" in html, url
        assert "旧的标题" not in html, url
    assert not PendingPurge.objects.exists()
    assert "新的标题" in cached(client, post.url)  # cached again


def test_a_purge_that_reached_the_cache_leaves_no_record(
    client, home, cache_to_cut, django_capture_on_commit_callbacks
):
    post = PostPageFactory(parent=home, title="标题", slug="reached")
    cached(client, post.url)
    post.title = "另一个标题"
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    assert not PendingPurge.objects.exists()
    assert "另一个标题" in cached(client, post.url)


def redis_address() -> tuple[str, int]:
    """Return the Redis of REDIS_URL, or of this machine."""
    url = urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    return url.hostname or "127.0.0.1", url.port or 6379


def test_a_page_made_private_while_redis_was_cut_off_is_not_served_from_it(
    client, home, settings, forwarder, monkeypatch, django_capture_on_commit_callbacks
):
    # A real Redis, reached through a link the test cuts while the change is
    # made, and the server restarts: Redis keeps its data throughout.
    link = forwarder(redis_address())
    link.open()
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": f"redis://127.0.0.1:{link.port}/0",
            "KEY_PREFIX": f"outage-test-{secrets.token_hex(4)}",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
        "renders": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"outage-test-{secrets.token_hex(4)}",
        },
    }
    post = PostPageFactory(parent=home, title="Redis 里的公开文章", slug="in-redis")
    assert "Redis 里的公开文章" in cached(client, post.url)

    link.cut()
    with django_capture_on_commit_callbacks(execute=True):
        PageViewRestriction.objects.create(
            page=post, restriction_type=PageViewRestriction.LOGIN
        )
    restart(monkeypatch)
    link.open()

    response = client.get(post.url)
    assert response.status_code == 302
    assert "/login/" in response["Location"]
    assert not PendingPurge.objects.exists()


def test_a_post_imported_again_while_the_cache_was_unreachable_is_served_anew(
    client,
    home,
    tmp_path,
    cache_to_cut,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    vault = tmp_path / "vault"
    vault.mkdir()
    source = vault / "kernel.md"
    source.write_text("---\ntitle: 内核笔记\n---\n\n旧的正文。\n", encoding="utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_markdown", str(vault), stdout=StringIO())
    url = PostPage.objects.get(title="内核笔记").url
    assert "旧的正文" in cached(client, url)

    UnreachableCache.down = True
    source.write_text("---\ntitle: 内核笔记\n---\n\n新的正文。\n", encoding="utf-8")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_markdown", str(vault), stdout=StringIO())
    restart(monkeypatch)
    UnreachableCache.down = False

    html = client.get(url).content.decode()
    assert "新的正文" in html
    assert "旧的正文" not in html
