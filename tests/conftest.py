import os

import pytest

from blog.models import ArchivePage, HomePage, TagIndexPage
from tests.blog.admin.editing import user_in_group
from tests.xdist_groups import (
    PAGE_CHECKS,
    is_page_check,
    pytest_xdist_make_scheduler,  # noqa: F401 - a hook
)


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


@pytest.fixture
def editor(django_user_model):
    """A member of Wagtail's default "Editors" group (not staff, not superuser).

    A superuser's client is pytest-django's ``admin_client``.
    """
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


def pytest_collection_modifyitems(config, items):
    """Refuse a page check outside the folders that xdist keeps on one worker."""
    strays = [
        item.nodeid
        for item in items
        if item.get_closest_marker("e2e") and not is_page_check(item.nodeid)
    ]
    if strays:
        raise pytest.UsageError(
            f"Tests marked e2e must live in {', '.join(PAGE_CHECKS)}: "
            + ", ".join(strays)
        )


@pytest.fixture(autouse=True)
def _empty_default_cache():
    """Start every test with an empty default cache (site root paths, images).

    Entries left by earlier tests would otherwise fill the local-memory cache
    until it culls a third of them at random, mid-test.
    """
    from django.core.cache import caches

    caches["default"].clear()


@pytest.fixture
def forwarder():
    """Return a maker of ``Forwarder``s to a service of this machine, cut after.

    PostgreSQL and Redis run on every machine of ours and on CI's; without the
    one a test needs it is skipped, except under CI, where that fails.
    """
    from tests.forwarder import Forwarder, service_answers

    made = []

    def make(target: tuple[str, int]) -> Forwarder:
        if not service_answers(target):
            message = f"nothing answers at {target[0]}:{target[1]}"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
        made.append(Forwarder(target))
        return made[-1]

    yield make
    for forwarder in made:
        forwarder.cut()


@pytest.fixture
def database_queue(db, settings):
    """The database backend, as deployed: a task waits for a worker (tests/queue.py)."""
    from tests.queue import DATABASE_QUEUE

    settings.TASKS = DATABASE_QUEUE
    # An editor's heavy work waits for nothing: run_worker() runs what is
    # ready now (tests/background/test_queue.py tests the wait).
    settings.EDITOR_WORK_DELAY_SECONDS = 0
