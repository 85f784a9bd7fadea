"""Each page type says what shows it; the page cache asks, knowing no page type."""

from wagtail.models import Page

from pagecache.purge import paths_showing
from tests.factories import PostPageFactory, SeriesPageFactory


def test_a_page_type_without_a_declaration_purges_its_own_paths(home):
    plain = home.add_child(instance=Page(title="Plain", slug="plain"))
    assert paths_showing(plain) == {"/plain/"}


def test_a_page_type_says_which_paths_show_it(home):
    section = SeriesPageFactory(parent=home, slug="cuda")
    series = SeriesPageFactory(parent=section, slug="cute")
    post = PostPageFactory(parent=series, slug="layout")
    # A top-level section is in every page's header; a nested series is not.
    assert paths_showing(section) is None
    assert {"/cuda/", "/cuda/feed/", "/cuda/cute/", "/cuda/cute/layout/"} <= (
        paths_showing(series)
    )
    shown_on = paths_showing(post)
    assert {"/cuda/cute/layout/", "/cuda/cute/", "/cuda/", "/feed/"} <= shown_on
    assert {"/cuda/cute/feed/", "/archive/", "/tags/", "/search/"} <= shown_on
