"""Task workers that say they are alive, and tasks a dead one left behind.

django-tasks-db marks a task RUNNING when a worker claims it; if that worker
is killed mid-task the row stays RUNNING for ever. Each worker (our
``db_worker``) therefore beats: every ``BEAT_SECONDS`` it writes the time in
``WorkerBeat``, from a thread of its own, so a long task does not stop it.
On the same beat it puts back in the queue the tasks running under a worker
that has not beaten for ``TASK_WORKER_LOST_SECONDS`` (a setting, 30 s):
another worker runs them again (every task is idempotent,
``background.retry``).
"""

from __future__ import annotations

import logging
import os
import threading
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from background.models import WorkerBeat

logger = logging.getLogger(__name__)


def lost_after() -> float:
    """Seconds without a beat after which a worker counts as stopped."""
    return float(settings.TASK_WORKER_LOST_SECONDS)


def beat_every() -> float:
    """A worker beats several times within ``lost_after()``: one late beat is no death."""
    return min(5.0, lost_after() / 4)


def lower_priority() -> int:
    """Run this process at the niceness ``TASK_WORKER_NICENESS`` adds; return it.

    0 by default. A niced worker yields the processor to the web processes on
    its machine, and so gets next to none while they are busy: under a
    lasting load, what readers ask for is then never finished (and never
    cached). For a machine where the web processes must win anyway.
    """
    niceness = int(settings.TASK_WORKER_NICENESS)
    if niceness > 0 and hasattr(os, "nice"):
        return os.nice(niceness)
    return os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0


def beat(worker_id: str) -> None:
    WorkerBeat.objects.update_or_create(
        worker_id=worker_id, defaults={"seen_at": timezone.now()}
    )


def requeue_orphans(after: float | None = None) -> int:
    """Put back the tasks running under workers not seen for ``after`` s."""
    after = lost_after() if after is None else after
    since = timezone.now() - timedelta(seconds=after)
    alive = set(
        WorkerBeat.objects.filter(seen_at__gte=since).values_list(
            "worker_id", flat=True
        )
    )
    orphans = [
        task.pk
        for task in DBTaskResult.objects.running().filter(started_at__lt=since)
        if not task.worker_ids or task.worker_ids[-1] not in alive
    ]
    if orphans:
        DBTaskResult.objects.filter(
            pk__in=orphans, status=TaskResultStatus.RUNNING
        ).update(status=TaskResultStatus.READY, started_at=None)
        logger.warning(
            "Put %d tasks of stopped workers back in the queue", len(orphans)
        )
    WorkerBeat.objects.filter(seen_at__lt=since).delete()
    return len(orphans)


class Heart:
    """Beat for ``worker_id`` from a daemon thread until ``stop()``."""

    def __init__(self, worker_id: str, every: float | None = None):
        self.worker_id = worker_id
        self.every = beat_every() if every is None else every
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="beat", daemon=True)

    def start(self) -> Heart:
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self.stopped.is_set():
            try:
                beat(self.worker_id)
                requeue_orphans()
            except Exception:
                # The database away for a moment: beat again next time.
                logger.exception("Task worker %s could not beat", self.worker_id)
            finally:
                close_old_connections()
            self.stopped.wait(self.every)
        connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=self.every + 5)
        try:
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()
        except Exception:
            logger.exception("Task worker %s could not say it stops", self.worker_id)
