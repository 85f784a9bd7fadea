"""What the queue holds, read for the admin and for `import_markdown --wait`."""

from datetime import timedelta

from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from background import queue
from tests.background.tasks import fails_until
from tests.queue import run_worker


def test_there_is_no_queue_with_the_immediate_backend(db):
    assert queue.state() is None


def test_the_state_counts_what_waits_and_since_when(database_queue):
    fails_until.enqueue("a", succeeds_on=1)
    fails_until.enqueue("b", succeeds_on=1)
    queued = DBTaskResult.objects.order_by("enqueued_at").first().enqueued_at
    state = queue.state()
    assert (state.waiting, state.running, state.failed) == (2, 0, 0)
    assert state.oldest == queued
    assert not state.stalled  # just queued: a worker may be on its way

    run_worker()
    state = queue.state()
    assert (state.waiting, state.failed) == (0, 0)
    assert state.last_started is not None


def test_a_queue_nobody_reads_is_stalled(database_queue):
    fails_until.enqueue("nobody", succeeds_on=1)
    long_ago = timezone.now() - queue.IDLE_AFTER - timedelta(seconds=1)
    DBTaskResult.objects.update(enqueued_at=long_ago)
    assert queue.state().stalled


def test_failures_are_counted_and_listed(database_queue):
    fails_until.enqueue("broken", succeeds_on=99)
    run_worker()
    assert queue.state().failed == 1
    (run,) = queue.failed_runs()
    assert "broken: run 1 fails" in run.traceback
    assert queue.retried(run)  # its second run waits


def test_follow_waits_until_the_tasks_are_done(database_queue):
    ids = [str(fails_until.enqueue(n, succeeds_on=1).id) for n in ("x", "y", "z")]
    seen = []

    def tick(progress):
        seen.append((progress.done, progress.total))
        if progress.done == 0:
            run_worker()  # a worker comes

    done = queue.follow(ids, tick, poll=0.01)
    assert (done.done, done.failed, done.total) == (3, 0, 3)
    assert seen == [(0, 3), (3, 3)]


def test_follow_says_once_when_no_worker_comes(database_queue):
    ids = [str(fails_until.enqueue("alone", succeeds_on=1).id)]
    DBTaskResult.objects.update(
        enqueued_at=timezone.now() - queue.IDLE_AFTER - timedelta(seconds=1)
    )
    warned = []

    def stalled():
        warned.append(True)
        run_worker()  # told, the user starts one

    done = queue.follow(ids, lambda progress: None, poll=0.01, stalled=stalled)
    assert done.done == 1
    assert warned == [True]
