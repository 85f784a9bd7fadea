import pytest
from django.core.management import call_command
from django.test import override_settings

DATABASE_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def database_queue(db):
    """The database backend, as deployed: a task waits for a worker."""
    with override_settings(TASKS=DATABASE_QUEUE):
        yield


def run_worker() -> None:
    """Run every task that is ready, as ``manage.py db_worker --batch`` does."""
    call_command(
        "db_worker", batch=True, reload=False, startup_delay=False, verbosity=0
    )
