"""Keep the cached search results in step with the search index.

Wagtail's index is updated on a task worker, after a publish has committed
(``insert_or_update_object_task``): until it runs, a search still matches
the post's old text. Search results purged at the publish would be made
again from that old index, and kept (``PAGE_CACHE_SEARCH_SECONDS``) after
the worker had brought it up to date. So a publish re-indexes the post on a
worker (once it has saved its tags) and the search results are purged then,
once the index holds the post's new text; an unpublish, a move or a delete
purges them at once (``blog.models.changes``).
"""

from django.apps import apps
from django.db import transaction
from django.urls import reverse
from wagtail.search import index

from background.queue import after_the_editor
from background.retry import retried
from pagecache.cache import purge_paths


@retried()
def reindex_task(app_label: str, model_name: str, pk: int) -> bool:
    """Index the page again, then purge the search results; return whether found."""
    model = apps.get_model(app_label, model_name)
    with transaction.atomic():
        page = model.objects.filter(pk=pk).first()
        if page is None:
            return False
        index.insert_or_update_object(page)
        purge_paths({reverse("search")})
    return True


def reindex_published(sender, instance, **kwargs):
    """Queue the re-indexing of a published page and the purge that follows it.

    Wagtail queues its own index update when the page row is saved, before
    modelcluster writes the tags; ``page_published`` comes after both.
    Queued in the publish's transaction, as Wagtail's own update is: the
    database queue's worker finds it once the publish commits. Tokenizing a
    long post is not the editor's wait.
    """
    meta = instance._meta
    after_the_editor(reindex_task).enqueue(meta.app_label, meta.model_name, instance.pk)
