"""The task queue as deployed (django-tasks-db), for the tests that need one.

The tests' settings run each task as it is queued; ``database_queue`` (a
fixture in tests/conftest.py) puts tasks in the database instead, where they
wait until ``run_worker()`` runs them as ``manage.py db_worker`` would.
"""

from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

DATABASE_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


def run_worker() -> None:
    """Run every task that is ready, as ``manage.py db_worker --batch`` does.

    django-tasks-db's worker, one task at a time in this thread, claimed as
    its loop claims them; not its loop, which closes the database connection
    between tasks (and with it the test's transaction, on PostgreSQL). Ours
    beats from a thread besides (background/workers.py):
    tests/scaleout/test_task_workers.py runs it, in processes of its own.
    """
    worker = Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
    while True:
        ready = DBTaskResult.objects.ready().filter(backend_name="default")
        task = ready.get_locked()
        if task is None:
            return
        task.claim(worker.worker_id)
        worker.run_task(task)
