"""The task queue as deployed (django-tasks-db), for the tests that need one.

The tests' settings run each task as it is queued; ``database_queue`` (a
fixture in tests/conftest.py) puts tasks in the database instead, where they
wait until ``run_worker()`` runs them as ``manage.py db_worker`` would.
"""

from django.core.management import call_command
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorker

DATABASE_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def run_worker() -> None:
    """Run every task that is ready, as ``manage.py db_worker --batch`` does.

    django-tasks-db's own command, in this thread: ours beats from a thread
    of its own (background/workers.py), which the test's transaction would
    not let see its rows; tests/scaleout/test_task_workers.py runs ours.
    """
    call_command(
        DatabaseWorker(), batch=True, reload=False, startup_delay=False, verbosity=0
    )
