"""The task queue as deployed (django-tasks-db), for the tests that need one.

The tests' settings run each task as it is queued; ``database_queue`` (a
fixture in tests/conftest.py) puts tasks in the database instead, where they
wait until ``run_worker()`` runs them as ``manage.py db_worker`` would.
"""

from django.core.management import call_command

DATABASE_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def run_worker() -> None:
    """Run every task that is ready, as ``manage.py db_worker --batch`` does."""
    call_command(
        "db_worker", batch=True, reload=False, startup_delay=False, verbosity=0
    )
