import pytest

from blog.models import ArchivePage, HomePage, TagIndexPage


@pytest.fixture
def home(db):
    """The site root HomePage that the data migration creates."""
    return HomePage.objects.get()


@pytest.fixture
def tag_index(home):
    """The tag index the data migration creates under home."""
    return TagIndexPage.objects.get()


@pytest.fixture
def archive(home):
    """The archive the data migration creates under home."""
    return ArchivePage.objects.get()


def pytest_collection_modifyitems(config, items):
    """Keep the page checks on one xdist worker: they share one server and browser."""
    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.xdist_group("e2e"))


@pytest.fixture(autouse=True)
def _empty_default_cache():
    """Start every test with an empty default cache (site root paths, images).

    Entries left by earlier tests would otherwise fill the local-memory cache
    until it culls a third of them at random, mid-test.
    """
    from django.core.cache import caches

    caches["default"].clear()
