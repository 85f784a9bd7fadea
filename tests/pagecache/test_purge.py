"""Each page type says what shows it; the page cache asks, knowing no page type."""

import datetime

from wagtail.models import Page

from blog.models import PostPage
from pagecache.purge import paths_showing
from tests.factories import PostPageFactory, SeriesPageFactory


def test_a_page_type_without_a_declaration_purges_its_own_paths(home):
    plain = home.add_child(instance=Page(title="Plain", slug="plain"))
    assert paths_showing(plain) == {"/plain/"}


def test_a_page_type_says_which_paths_show_it(home, monkeypatch):
    monkeypatch.setattr("blog.models.post.RECENT_COUNT", 1)
    section = SeriesPageFactory(parent=home, slug="cuda")
    series = SeriesPageFactory(parent=section, slug="cute")
    old = datetime.date(2000, 1, 1)
    post = PostPageFactory(parent=series, slug="layout", date=old, updated=old)
    PostPageFactory(parent=series, slug="newer")
    # Sections and series are in the header of every page.
    assert paths_showing(section) is None
    assert paths_showing(series) is None
    # A post that is not among the recent posts: the pages that list it, and
    # the explorer fragment of its series (the folder that lists it).
    shown_on = paths_showing(post)
    assert {"/cuda/cute/layout/", "/cuda/cute/", "/cuda/", "/feed/"} <= shown_on
    assert {"/cuda/cute/feed/", "/archive/", "/tags/", "/search/"} <= shown_on
    assert "/cuda/cute/newer/" in shown_on
    assert "/_explorer/cuda/cute/" in shown_on
    assert not {"/_explorer/", "/_explorer/cuda/"} & shown_on
    # One among them, or straight under home: every folder's explorer, and
    # still not every page.
    fragments = {"/_explorer/", "/_explorer/cuda/", "/_explorer/cuda/cute/"}
    assert fragments <= paths_showing(PostPage.objects.get(slug="newer"))
    top = PostPageFactory(parent=home, slug="top", date=old, updated=old)
    assert fragments <= paths_showing(top)
