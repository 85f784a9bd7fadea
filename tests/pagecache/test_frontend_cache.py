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


def test_a_post_in_the_recent_updates_purges_the_explorer_not_the_whole_site(
    purger, home, django_capture_on_commit_callbacks
):
    # 最近更新 beside every page lists it: the explorer fragments change, and
    # those only; the pages load them (blog.explorer). No "/*" for the CDN.
    series = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    SeriesPageFactory(parent=home, title="笔记", slug="notes")
    PostPageFactory(parent=home, slug="about")
    post = PostPageFactory(parent=series, slug="smem", live=False)
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    purged = set(purger)
    assert "localhost/*" not in purged
    assert {"localhost/_explorer/", "localhost/_explorer/cuda/",
            "localhost/_explorer/notes/"} <= purged  # fmt: skip
    assert "localhost/about/" not in purged and "localhost/notes/" not in purged


@pytest.fixture
def blog(home, tag_index, archive):
    """Two sections of older posts, and newer ones filling 最近更新."""
    cuda = SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
    cute = SeriesPageFactory(parent=cuda, title="CuTe", slug="cute")
    notes = SeriesPageFactory(parent=home, title="笔记", slug="notes")
    old = date(2020, 1, 1)
    posts = {
        name: PostPageFactory(
            parent=parent, slug=name, title=name, tags=["cuda"], date=old, updated=old
        )
        for name, parent in (("smem", cuda), ("layout", cute), ("csapp", notes))
    }
    posts["csapp"].tags.clear()  # shares no tag: not among the others' related
    for post in posts.values():  # published once, as readers have seen them
        post.save_revision().publish()
    for n in range(RECENT_COUNT):
        posts[f"new{n}"] = PostPageFactory(
            parent=notes, slug=f"new{n}", updated=date(2030, 1, 1)
        )
    return posts


def edit(post, capture, purger, **fields):
    """Publish ``post`` with ``fields`` changed; return the paths purged."""
    purger.clear()
    for name, value in fields.items():
        setattr(post, name, value)
    with capture(execute=True):
        post.save_revision().publish()
    return {p.removeprefix("localhost") for p in purger}


def test_a_body_edit_purges_the_post_and_its_feeds_only(
    purger, blog, django_capture_on_commit_callbacks
):
    from wagtail.rich_text import RichText

    purged = edit(
        blog["smem"],
        django_capture_on_commit_callbacks,
        purger,
        body=[("paragraph", RichText("<p>新的正文</p>"))],
    )
    assert {"/cuda/smem/", "/cuda/smem/preview/", "/feed/", "/cuda/feed/",
            "/tags/cuda/feed/", "/search/"} <= purged  # fmt: skip
    # No listing shows the body; the explorer does not; nothing site-wide.
    for listing in ("/", "/cuda/", "/tags/cuda/", "/archive/", "/notes/csapp/"):
        assert listing not in purged, listing
    assert not [p for p in purged if p.startswith("/_explorer")]
    assert "/*" not in purged
    assert len(purged) <= 12, sorted(purged)


def test_a_new_title_purges_its_listings_and_its_folders_explorer(
    purger, blog, django_capture_on_commit_callbacks
):
    purged = edit(blog["layout"], django_capture_on_commit_callbacks, purger,
                  title="布局代数（修订）")  # fmt: skip
    assert {"/cuda/cute/layout/", "/cuda/cute/", "/cuda/", "/", "/tags/cuda/",
            "/archive/", "/_explorer/cuda/cute/"} <= purged  # fmt: skip
    # Other folders' explorers do not list it; the post is not among 最近更新.
    assert not {"/_explorer/", "/_explorer/cuda/", "/_explorer/notes/"} & purged
    assert "/*" not in purged


def test_a_summary_edit_purges_listings_but_not_the_explorer(
    purger, blog, django_capture_on_commit_callbacks
):
    purged = edit(blog["csapp"], django_capture_on_commit_callbacks, purger,
                  summary="新的摘要")  # fmt: skip
    assert {"/notes/csapp/", "/notes/", "/", "/archive/"} <= purged
    assert not [p for p in purged if p.startswith("/_explorer")]


def test_a_post_entering_the_recent_updates_purges_every_explorer_only(
    purger, blog, django_capture_on_commit_callbacks
):
    purged = edit(blog["smem"], django_capture_on_commit_callbacks, purger,
                  updated=date(2031, 1, 1))  # fmt: skip
    assert {"/_explorer/", "/_explorer/cuda/", "/_explorer/cuda/cute/",
            "/_explorer/notes/"} <= purged  # fmt: skip
    assert "/*" not in purged
    # The pages of other folders keep their cached copies.
    assert "/notes/new0/" not in purged and "/notes/csapp/" not in purged


def publish_from_the_admin(client, post, capture, purger, tags):
    """Publish ``post`` from the page editor's form with its body changed and
    these tags (the form saves the tag rows anew); return the paths purged."""
    from tests.blog.admin.editing import edit_url, form_data, paragraph

    purger.clear()
    data = form_data(
        [("paragraph", paragraph("<p>编辑改过的正文</p>"))],
        action="publish",
        title=post.title,
        slug=post.slug,
        summary=post.summary,
        date=post.date.isoformat(),
        updated=post.updated.isoformat(),
        tags=tags,
    )
    with capture(execute=True):
        response = client.post(edit_url(post), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return {p.removeprefix("localhost") for p in purger}


def test_a_publish_from_the_admin_with_the_same_tags_purges_no_tag_page(
    admin_client, purger, blog, django_capture_on_commit_callbacks
):
    purged = publish_from_the_admin(
        admin_client, blog["smem"], django_capture_on_commit_callbacks, purger, "cuda"
    )
    assert {"/cuda/smem/", "/feed/", "/tags/cuda/feed/"} <= purged
    # The form deleted the post's tag row and added it again: no change.
    assert not {"/tags/", "/tags/cuda/", "/cuda/cute/layout/"} & purged


def test_a_publish_from_the_admin_purges_the_tags_gained_and_lost(
    admin_client, purger, blog, django_capture_on_commit_callbacks
):
    purged = publish_from_the_admin(
        admin_client, blog["smem"], django_capture_on_commit_callbacks, purger, "gemm"
    )
    assert {"/tags/", "/tags/cuda/", "/tags/gemm/", "/tags/gemm/feed/",
            "/cuda/cute/layout/"} <= purged  # fmt: skip
