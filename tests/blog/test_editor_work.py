"""The heavy work of an editor's publish waits a moment for a worker.

Typesetting the body, checking it and re-indexing it for search are queued
to run ``EDITOR_WORK_DELAY_SECONDS`` after the publish, so that the admin's
next page is served before a worker takes the machine's cores
(background/queue.py, ``after_the_editor``); the purges are not held back.
"""

from datetime import timedelta

from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tests.factories import PostPageFactory, SeriesPageFactory
from tests.queue import run_worker

HEAVY = {
    "blog.warming.warm_task",
    "blog.writing.check_task",
    "blog.search_index.reindex_task",
}


def queued():
    return {row.task_path: row for row in DBTaskResult.objects.all()}


def test_a_publish_leaves_its_typesetting_to_a_worker_a_second_later(
    home, database_queue, settings, django_capture_on_commit_callbacks
):
    settings.EDITOR_WORK_DELAY_SECONDS = 1
    series = SeriesPageFactory(parent=home)
    post = PostPageFactory(parent=series, title="长推导")
    post.body = [("markdown", "$$\\frac{1}{2}$$")]
    DBTaskResult.objects.all().delete()  # what building the site queued

    published_at = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()

    tasks = queued()
    assert set(tasks) >= HEAVY
    for path in HEAVY:
        wait = tasks[path].run_after - published_at
        assert timedelta(seconds=1) <= wait < timedelta(seconds=3), path
    # Nothing of it is ready for a worker yet: the editor's next page comes first.
    ready = set(DBTaskResult.objects.ready().values_list("task_path", flat=True))
    assert not ready & HEAVY

    DBTaskResult.objects.update(run_after=timezone.now())  # a second later
    run_worker()
    done = {path: row.status for path, row in queued().items() if path in HEAVY}
    assert set(done.values()) == {"SUCCESSFUL"}, done


def test_without_a_delay_the_work_is_ready_at_once(
    home, database_queue, settings, django_capture_on_commit_callbacks
):
    settings.EDITOR_WORK_DELAY_SECONDS = 0
    series = SeriesPageFactory(parent=home)
    post = PostPageFactory(parent=series)
    DBTaskResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        post.save_revision().publish()
    ready = set(DBTaskResult.objects.ready().values_list("task_path", flat=True))
    assert ready >= HEAVY
