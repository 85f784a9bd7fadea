"""A CDN or caching proxy in front is purged with the page cache.

A small HTTP server on 127.0.0.1 stands in for Varnish: it records the PURGE
requests Wagtail's HTTP backend sends it.
"""

import threading
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from blog.models.post import RECENT_COUNT
from tests.factories import PostPageFactory, SeriesPageFactory


class Purger(BaseHTTPRequestHandler):
    purged: list[str] = []

    def do_PURGE(self):  # noqa: N802 - the HTTP method's name
        Purger.purged.append(f"{self.headers['Host']}{self.path}")
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def purger(settings):
    Purger.purged = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Purger)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.WAGTAILFRONTENDCACHE = {
        "proxy": {
            "BACKEND": "wagtail.contrib.frontend_cache.backends.HTTPBackend",
            "LOCATION": f"http://127.0.0.1:{server.server_port}",
        }
    }
    yield Purger.purged
    server.shutdown()


def test_publishing_purges_the_pages_that_show_the_post_from_the_cdn(
    purger, home, tag_index, archive, django_capture_on_commit_callbacks
):
    # An older post: not among 最近更新 beside every page (newer ones are).
    series = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    for n in range(RECENT_COUNT):
        PostPageFactory(parent=notes, slug=f"new-{n}", updated=date(2030, 1, 1))
    post = PostPageFactory(
        parent=series,
        slug="smem",
        tags=["cuda"],
        live=False,
        date=date(2020, 1, 1),
        updated=date(2020, 1, 1),
    )
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    purged = set(purger)
    for path in ["/cuda/smem/", "/cuda/", "/", "/tags/cuda/", "/archive/", "/feed/"]:
        assert f"localhost{path}" in purged, path
    assert "localhost/notes/" not in purged and "localhost/*" not in purged


def test_a_post_in_the_recent_updates_purges_the_whole_site_from_the_cdn(
    purger, home, django_capture_on_commit_callbacks
):
    # 最近更新 beside every page lists it: every page changes.
    series = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    post = PostPageFactory(parent=series, slug="smem", live=False)
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    assert "localhost/*" in set(purger)
