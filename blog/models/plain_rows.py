"""Build the post rows a listing reads without ``Model.__init__``.

This reaches past Django's public API: it builds instances the way
``Model.from_db`` would, setting ``_state`` and the instance ``__dict__``
itself. ``tests/blog/test_plain_rows.py`` pins what it relies on, so a Django
or Wagtail upgrade that changes it fails there.
"""

import functools

from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init


class RowsLoadedPlainly:
    """A page mixin: build the rows read from the database without ``__init__``.

    ClusterableModel and Wagtail's page mixins extend ``__init__`` for objects
    being created: child relations passed as arguments, a default content type
    and menu flag. A row read from the database is none of those, and Django's
    own ``__init__`` walks all forty fields of a page, deferred or not, to set
    each loaded one: the archive, two hundred posts a page, spends a quarter
    of its time there (docs/performance.md). A loaded value goes straight into
    the instance, as Django's field descriptors would put it; a field with a
    descriptor of its own (a StreamField) is set through it. Models with init
    signals are built the usual way. Only posts, which listings load by the
    hundred, use it.
    """

    @classmethod
    def from_db(cls, db, field_names, values):
        if pre_init.has_listeners(cls) or post_init.has_listeners(cls):
            return super().from_db(db, field_names, values)
        page = cls.__new__(cls)
        page._state = ModelState()
        page._state.adding = False
        page._state.db = db
        # In a row with deferred fields, values holds the loaded ones in order.
        plain = _plainly_set(cls)
        loaded = page.__dict__
        for name, value in zip(field_names, values, strict=True):
            if name in plain:
                loaded[name] = value
            else:
                setattr(page, name, value)
        return page


@functools.cache
def _plainly_set(model) -> frozenset[str]:
    """Return the fields of ``model`` whose descriptor only stores the value."""
    return frozenset(
        field.attname
        for field in model._meta.concrete_fields
        if type(getattr(model, field.attname, None))
        in (DeferredAttribute, ForeignKeyDeferredAttribute)
    )
