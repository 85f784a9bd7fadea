"""A task whose worker stopped mid-run goes back in the queue; a live one's stays.

And a worker gives the processor to the web processes first.
"""

import multiprocessing
import os
from datetime import timedelta

from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from background.models import WorkerBeat
from background.workers import beat, requeue_orphans
from tests.background.tasks import fails_until


def running(name, worker, seconds_ago):
    result = fails_until.enqueue(name, succeeds_on=1)
    DBTaskResult.objects.filter(pk=result.id).update(
        status=TaskResultStatus.RUNNING,
        started_at=timezone.now() - timedelta(seconds=seconds_ago),
        worker_ids=[worker],
    )
    return result.id


def status(pk):
    return DBTaskResult.objects.get(pk=pk).status


def test_the_tasks_of_a_worker_that_stopped_beating_run_again(database_queue):
    beat("alive")
    beat("dead")
    WorkerBeat.objects.filter(worker_id="dead").update(
        seen_at=timezone.now() - timedelta(minutes=5)
    )
    orphan = running("orphan", "dead", seconds_ago=120)
    busy = running("busy", "alive", seconds_ago=120)
    fresh = running("fresh", "unknown", seconds_ago=2)  # claimed a moment ago

    assert requeue_orphans(after=30) == 1
    assert status(orphan) == TaskResultStatus.READY
    assert DBTaskResult.objects.get(pk=orphan).started_at is None
    assert status(busy) == status(fresh) == TaskResultStatus.RUNNING
    # The dead worker's beat is forgotten; the live one's kept.
    assert set(WorkerBeat.objects.values_list("worker_id", flat=True)) == {"alive"}


def test_a_worker_that_never_beat_counts_as_stopped(database_queue):
    old = running("old", "before-beats", seconds_ago=3600)
    assert requeue_orphans(after=30) == 1
    assert status(old) == TaskResultStatus.READY


def _niceness_of_a_worker(queue) -> None:
    from background.workers import lower_priority

    before = os.getpriority(os.PRIO_PROCESS, 0)
    lower_priority()
    queue.put((before, os.getpriority(os.PRIO_PROCESS, 0)))


def test_a_task_worker_yields_the_processor_to_the_web_processes(settings):
    # Run in a process of its own: niceness cannot be taken back.
    settings.TASK_WORKER_NICENESS = 7
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_niceness_of_a_worker, args=(queue,))
    child.start()
    before, after = queue.get(timeout=30)
    child.join(timeout=30)

    assert after == min(before + 7, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == before
