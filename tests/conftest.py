import pytest

from blog.models import HomePage
from tests.factories import ArchivePageFactory, TagIndexPageFactory


@pytest.fixture
def home(db):
    """The site root HomePage that the data migration creates."""
    return HomePage.objects.get()


@pytest.fixture
def tag_index(home):
    return TagIndexPageFactory(parent=home)


@pytest.fixture
def archive(home):
    return ArchivePageFactory(parent=home)
