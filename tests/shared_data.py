"""Data built once for all the tests of a module, each test's changes undone.

pytest-django runs every test in a transaction it rolls back afterwards, or in
a savepoint when a transaction is already open. A module fixture that opens one
first and builds its data there gives each test of the module that data, at
the cost of building it once; the module's last test closes it, rolled back.
"""

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from django.core.cache import caches
from django.db import transaction

T = TypeVar("T")


@contextmanager
def kept_for_the_module(django_db_blocker, build: Callable[[], T]) -> Iterator[T]:
    """Yield what `build()` returns, its rows kept until the block ends.

    For an autouse module fixture: while the block is open, every test sees
    the data, whether it asked for it or not.
    """
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            built = build()
        except BaseException:
            atomic.__exit__(*sys.exc_info())
            raise
    try:
        yield built
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
        # Pages cached while the data existed must not outlive it.
        caches["default"].clear()
