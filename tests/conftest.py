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
