"""django-tasks-db's ``db_worker``, beating while it runs (``background.workers``).

Same options and behaviour; besides, the worker says it is alive every few
seconds, puts back in the queue the tasks of workers that stopped mid-task,
and runs at a lower processor priority than the web processes.
"""

from django_tasks_db.management.commands.db_worker import Command as DatabaseWorker

from background.workers import Heart, lower_priority


class Command(DatabaseWorker):
    help = DatabaseWorker.help + " (and beat, so a stopped worker's tasks run again)"

    def handle(self, *args, worker_id: str, **options):
        lower_priority()
        heart = Heart(worker_id).start()
        try:
            return super().handle(*args, worker_id=worker_id, **options)
        finally:
            heart.stop()
