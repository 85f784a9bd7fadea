"""Bring the search and reference indexes up to date once per page, not per save.

Wagtail updates both indexes on every save of a page: an imported post is saved
when it is added, revised and published, its tags are saved with it, and
`blog.search_index.reindex_published` indexes it once more after publishing.
Each search index update reads the whole post again (its tokens come from jieba)
and, on SQLite, averages the title length of the whole index; each reference
index update walks the whole body. Inside `deferred_index_updates()` those
updates are not made but noted, for the calling thread only, and at the end
each noted object is indexed once: in bulk for the search backends, one
`ReferenceIndex.create_or_update_for_object` per object.

Wagtail can switch off the reference index updates of one thread
(`disable_reference_index_auto_update`), but not say which objects it skipped,
and has no such switch for search. So the receivers that make these updates
are replaced, once per process, by gates that call them unchanged in every
thread that is not deferring. A thread that is deferring sees its own writes
unindexed until the block ends; no other thread is affected.

The receivers are Wagtail's and modelsearch's, not public API, and this module
is the one place that replaces them: ``tests/vault/importer/test_indexing.py``
pins what it relies on (every indexed object found after an import, other
threads indexed at once), so an upgrade that moves them fails there.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from asgiref.local import Local
from django.db import transaction
from django.db.models import Model
from django.db.models.signals import post_save
from django.dispatch import Signal
from modelcluster.fields import ParentalKey
from wagtail import signal_handlers as wagtail_signals
from wagtail.models import ReferenceIndex
from wagtail.search import signal_handlers as search_signals
from wagtail.search.backends import get_search_backends_with_name
from wagtail.search.index import get_indexed_models
from wagtail.signals import page_published

logger = logging.getLogger(__name__)

SEARCH = "search"
REFERENCES = "references"

_local = Local()
_install_lock = threading.Lock()
_installed = False


class _Gate:
    """A receiver that notes its sender's object instead while its thread defers."""

    def __init__(self, receiver: Callable, kind: str) -> None:
        self.receiver = receiver
        self.kind = kind

    def __call__(self, *args, **kwargs):
        pending = getattr(_local, "pending", None)
        instance = kwargs.get("instance")
        if pending is None or instance is None:
            return self.receiver(*args, **kwargs)
        pending.note(self.kind, instance)
        return None


def _gate(
    signal: Signal, receiver: Callable, sender, kind: str, dispatch_uid=None
) -> None:
    """Put a gate in the place of ``receiver`` (if connected) for ``sender``."""
    gate = _Gate(receiver, kind)
    uid = f"vault.importer.indexing.{kind}.{dispatch_uid or receiver.__qualname__}"
    # Connected first, so that no save in another thread goes unindexed meanwhile.
    signal.connect(gate, sender=sender, weak=False, dispatch_uid=uid)
    connected = signal.disconnect(
        None if dispatch_uid else receiver, sender=sender, dispatch_uid=dispatch_uid
    )
    if not connected:
        signal.disconnect(sender=sender, dispatch_uid=uid)


def _install() -> None:
    """Gate the receivers that update the indexes on save; once per process."""
    global _installed
    with _install_lock:
        if _installed:
            return
        for model in get_indexed_models():
            _gate(post_save, search_signals.post_save_signal_handler, model, SEARCH)
        for model in list(ReferenceIndex.tracked_models):
            _gate(
                post_save,
                wagtail_signals.update_reference_index_on_save,
                model,
                REFERENCES,
            )
        from blog.models import PostPage
        from blog.search_index import reindex_published

        # Connected in BlogConfig.ready() under this dispatch_uid.
        _gate(page_published, reindex_published, PostPage, SEARCH, "search")
        _installed = True


def _reference_owner(instance: Model) -> Model | None:
    """Return the object ``instance``'s references are recorded under.

    A child of a cluster (a post's tag) is recorded under its parent, as
    Wagtail's own reference index task does.
    """
    while True:
        keys = [f for f in instance._meta.get_fields() if isinstance(f, ParentalKey)]
        if not keys:
            return instance
        instance = getattr(instance, keys[0].name)
        if instance is None:
            return None


class _Pending:
    """The objects whose index updates were deferred, by index and model."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[type[Model], set]] = {
            SEARCH: defaultdict(set),
            REFERENCES: defaultdict(set),
        }

    def note(self, kind: str, instance: Model) -> None:
        if kind == REFERENCES:
            instance = _reference_owner(instance)
            if instance is None:
                return
        self.objects[kind][type(instance)].add(instance.pk)

    def flush(self) -> None:
        """Index every noted object that still exists, once."""
        with transaction.atomic():
            self._update_search()
            self._update_references()

    def _update_search(self) -> None:
        # An object is indexed as its most specific class (a Page moved as a
        # plain Page is indexed as the post it is).
        by_model: dict[type[Model], set] = defaultdict(set)
        for model, pks in self.objects[SEARCH].items():
            for obj in model._default_manager.filter(pk__in=pks):
                indexed = obj.get_indexed_instance()
                if indexed is not None:
                    by_model[type(indexed)].add(indexed.pk)
        for model, pks in by_model.items():
            objects = list(model.get_indexed_objects().filter(pk__in=pks))
            if not objects:
                continue
            for name, backend in get_search_backends_with_name(with_auto_update=True):
                try:
                    backend.add_bulk(model, objects)
                except Exception:
                    # As Wagtail does on save: a search service that is down
                    # (Elasticsearch) is logged; a database backend's error is
                    # raised, since its transaction is broken anyway.
                    logger.exception(
                        "Could not index %d %s in the %r search backend",
                        len(objects),
                        model._meta.verbose_name_plural,
                        name,
                    )
                    if not backend.catch_indexing_errors:
                        raise

    def _update_references(self) -> None:
        for model, pks in self.objects[REFERENCES].items():
            if not ReferenceIndex.is_indexed(model):
                continue
            for obj in model._default_manager.filter(pk__in=pks):
                ReferenceIndex.create_or_update_for_object(obj)


@contextmanager
def deferred_index_updates() -> Iterator[None]:
    """Defer this thread's search and reference index updates to the block's end.

    At the end, even when the block raises, every object saved in it that still
    exists is indexed once, so the indexes hold what was written and committed
    (a rolled-back page is not there to index). Nested blocks update at the
    end of the outermost one.
    """
    _install()
    if getattr(_local, "pending", None) is not None:
        yield
        return
    pending = _local.pending = _Pending()
    try:
        yield
    finally:
        del _local.pending
        pending.flush()
