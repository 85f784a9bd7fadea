"""The people who write in the admin, and the section they write in."""

import pytest

from tests.blog.admin.editing import user_in_group
from tests.factories import SeriesPageFactory


@pytest.fixture
def series(home):
    return SeriesPageFactory(parent=home, title="CUDA", slug="cuda")


@pytest.fixture
def editor(django_user_model):
    """A member of Wagtail's default "Editors" group (not staff, not superuser)."""
    return user_in_group(django_user_model, "Editors")


@pytest.fixture
def moderator(django_user_model):
    """A member of Wagtail's default "Moderators" group."""
    return user_in_group(django_user_model, "Moderators")


@pytest.fixture
def as_editor(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def as_moderator(client, moderator):
    client.force_login(moderator)
    return client
