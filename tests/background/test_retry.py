"""A task that raises is run again later, then left failed for the admin."""

from datetime import timedelta

from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from background.retry import retry_delay
from tests.background.tasks import fails_until, runs
from tests.queue import run_worker


def results():
    return list(DBTaskResult.objects.order_by("enqueued_at"))


def test_a_failed_run_is_recorded_and_queued_again_later(database_queue):
    fails_until.enqueue("later", succeeds_on=2)
    run_worker()

    first, again = results()
    assert first.status == TaskResultStatus.FAILED
    assert "later: run 1 fails" in first.traceback
    assert again.status == TaskResultStatus.READY
    assert again.args_kwargs["kwargs"] == {"succeeds_on": 2, "attempt": 2}
    wait = (again.run_after - timezone.now()).total_seconds()
    assert retry_delay(1, 60) - 5 < wait <= retry_delay(1, 60)
    # Not before its time: the worker leaves it.
    run_worker()
    assert runs("later") == 1


def test_the_retry_runs_once_its_time_comes(database_queue):
    fails_until.enqueue("comes", succeeds_on=2)
    run_worker()
    DBTaskResult.objects.filter(status=TaskResultStatus.READY).update(
        run_after=timezone.now() - timedelta(seconds=1)
    )
    run_worker()
    statuses = [r.status for r in results()]
    assert statuses == [TaskResultStatus.FAILED, TaskResultStatus.SUCCESSFUL]
    assert results()[-1].return_value == "comes done on run 2"


def test_after_the_last_attempt_the_task_stays_failed(database_queue):
    fails_until.enqueue("never", succeeds_on=99)
    for _ in range(5):
        run_worker()
        DBTaskResult.objects.filter(status=TaskResultStatus.READY).update(
            run_after=timezone.now() - timedelta(seconds=1)
        )
    assert runs("never") == 3
    assert [r.status for r in results()] == [TaskResultStatus.FAILED] * 3
    assert [r.args_kwargs["kwargs"].get("attempt", 1) for r in results()] == [1, 2, 3]


def test_the_backoff_grows():
    assert [retry_delay(n, 5) for n in (1, 2, 3)] == [5, 20, 80]


def test_without_a_queue_the_retry_runs_at_once(db):
    # The immediate backend (the tests' setting) cannot defer.
    result = fails_until.enqueue("at-once", succeeds_on=2)
    assert runs("at-once") == 2
    assert result.status == TaskResultStatus.FAILED  # the first run's result
