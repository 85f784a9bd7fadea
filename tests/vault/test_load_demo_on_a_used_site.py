"""`manage.py load_demo` on a site that is not empty, or not migrated yet."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from wagtail.images import get_image_model
from wagtail.models import Site

from blog.models import PostPage, SeriesPage
from tests.factories import PostPageFactory, SeriesPageFactory

pytestmark = pytest.mark.django_db


def load_demo():
    call_command("load_demo", stdout=StringIO())


def test_leaves_pages_that_already_exist_as_they_are(home):
    cuda = SeriesPageFactory(
        parent=home, slug="cuda", title="我的 CUDA", ordering="explorer"
    )
    mine = PostPageFactory(parent=cuda, slug="readme", title="我自己的 README")
    load_demo()
    cuda.refresh_from_db()
    mine.refresh_from_db()
    assert (cuda.title, cuda.ordering) == ("我的 CUDA", "explorer")
    assert mine.title == "我自己的 README"
    # The demo's posts still go inside the existing section.
    assert PostPage.objects.get(slug="flashattention-v1-v4").get_parent().pk == cuda.pk


def test_refuses_a_demo_slug_taken_by_another_kind_of_page(home):
    PostPageFactory(parent=home, slug="notes", title="随手记")
    with pytest.raises(CommandError, match="/notes/ already exists as a PostPage"):
        load_demo()
    # All or nothing: the sections built before the clash are rolled back.
    assert not SeriesPage.objects.exists()
    assert not get_image_model().objects.exists()


def test_refuses_to_run_before_migrate(db):
    Site.objects.all().delete()
    with pytest.raises(CommandError, match="migrate"):
        call_command("load_demo", stdout=StringIO())
