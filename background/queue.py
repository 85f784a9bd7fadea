"""What the task queue holds: waiting, running and failed work.

Only a database backend (django-tasks-db) has a queue to read; with the
immediate backend every task has run by the time ``enqueue`` returns, and
these report nothing waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task_backends
from django_tasks.base import TaskResultStatus
from django_tasks_db import DatabaseBackend
from django_tasks_db.models import DBTaskResult

# A worker polls every second; a task that waited this long with nothing
# started meanwhile means no worker is running.
IDLE_AFTER = timedelta(seconds=15)
# Failures older than this drop out of the admin's report.
FAILED_KEPT = timedelta(days=14)


def is_queued(alias: str = "default") -> bool:
    """Whether tasks of this backend wait for a worker (a database queue)."""
    return isinstance(task_backends[alias], DatabaseBackend)


def after_the_editor(task):
    """Return ``task`` set to wait ``EDITOR_WORK_DELAY_SECONDS`` for a worker.

    A publish answers the editor at once and the admin's next page follows
    it; a worker that starts typesetting a long post at that moment takes a
    core from the web process serving that page and from the editor's
    browser, where they share a machine (docs/performance.md). Readers in
    between get what the render budget gives (serving/budget.py). A backend that cannot defer (the
    immediate one, in tests) runs it as it is queued.
    """
    delay = settings.EDITOR_WORK_DELAY_SECONDS
    if not delay or not task.get_backend().supports_defer:
        return task
    return task.using(run_after=timezone.now() + timedelta(seconds=delay))


@dataclass(frozen=True)
class QueueState:
    waiting: int  # ready to run
    scheduled: int  # to run later (a retry waiting out its backoff)
    oldest: datetime | None  # when the longest-waiting task was queued
    running: int
    failed: int  # in the last FAILED_KEPT
    last_started: datetime | None

    @property
    def stalled(self) -> bool:
        """Tasks wait, and no worker has started one for a while."""
        if not self.waiting or self.running:
            return False
        quiet_since = max(filter(None, (self.oldest, self.last_started)))
        return timezone.now() - quiet_since > IDLE_AFTER


def state() -> QueueState | None:
    """Return what the default queue holds, or None when there is no queue."""
    if not is_queued():
        return None
    results = DBTaskResult.objects.all()
    ready = results.ready()
    waiting = ready.count()
    oldest = ready.order_by("enqueued_at").values_list("enqueued_at", flat=True)
    started = results.exclude(started_at=None).order_by("-started_at")
    return QueueState(
        waiting=waiting,
        scheduled=results.filter(status=TaskResultStatus.READY).count() - waiting,
        oldest=oldest.first(),
        running=results.running().count(),
        failed=failed_runs().count(),
        last_started=started.values_list("started_at", flat=True).first(),
    )


@dataclass
class Progress:
    done: int
    failed: int
    total: int


def follow(
    ids: Iterable[str],
    tick: Callable[[Progress], None],
    *,
    poll: float = 0.5,
    stalled: Callable[[], None] | None = None,
) -> Progress:
    """Wait until the tasks of these result ids have finished; return the count.

    ``tick`` is called whenever the count moves; ``stalled`` once, when the
    queue seems to have no worker (``QueueState.stalled``).
    """
    ids = [str(i) for i in ids]
    finished = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
    seen = None
    warned = False
    while True:
        counts = dict.fromkeys(finished, 0)
        for start in range(0, len(ids), 500):  # SQLite's bound on parameters
            rows = DBTaskResult.objects.filter(
                pk__in=ids[start : start + 500], status__in=finished
            ).values_list("status", flat=True)
            for status in rows:
                counts[status] += 1
        now = Progress(
            done=sum(counts.values()),
            failed=counts[TaskResultStatus.FAILED],
            total=len(ids),
        )
        if now != seen:
            tick(now)
            seen = now
        if now.done >= now.total:
            return now
        if stalled is not None and not warned:
            current = state()
            if current is not None and current.stalled:
                stalled()
                warned = True
        time.sleep(poll)


def failed_runs():
    """Return the failed runs of the last ``FAILED_KEPT``, newest first."""
    since = timezone.now() - FAILED_KEPT
    failed = DBTaskResult.objects.failed().filter(finished_at__gte=since)
    return failed.order_by("-finished_at")


def retried(run: DBTaskResult) -> bool:
    """Whether the failed ``run`` was queued again (``background.retry``)."""
    call = run.args_kwargs or {}
    attempt = (call.get("kwargs") or {}).get("attempt", 1)
    later = DBTaskResult.objects.filter(
        task_path=run.task_path,
        enqueued_at__gte=run.enqueued_at,
        args_kwargs__kwargs__attempt=attempt + 1,
    ).values_list("args_kwargs", flat=True)
    return any(other.get("args") == call.get("args") for other in later)
