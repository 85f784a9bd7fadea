"""A bound on the rendering one request may do; what is left is shown as source.

A reader's request must never pay for typesetting a whole site: with an empty
render cache (a new server, a flushed Redis) a post of thousands of formulas,
or a feed of twenty, would take longer than the server lets a request run.
Inside ``budget(seconds)``, a ``memoize``d renderer given a ``deferred``
stand-in renders afresh only until the time is spent; after that a render the
cache lacks is put off, and its stand-in (the formula's or the code's source,
escaped) is shown instead. What was rendered is kept, so each request takes
the work further, and the warm-up started at publish or at the server's start
(``blog/warming.py``) finishes it.

Output holding a stand-in is provisional: memoized renderers do not keep it,
and whoever keeps a whole page asks ``watch()`` whether it may.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class _Budget:
    deadline: float
    # Renders put off so far: a count, so that a caller can tell whether any
    # was put off while it ran.
    deferred: int = 0


_current: ContextVar[_Budget | None] = ContextVar("render_budget", default=None)


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Render afresh for at most ``seconds`` inside the block; nested ones join it."""
    if _current.get() is not None:
        yield
        return
    token = _current.set(_Budget(time.monotonic() + seconds))
    try:
        yield
    finally:
        _current.reset(token)


def spent() -> bool:
    """Return whether a budget is open and its time is up."""
    current = _current.get()
    return current is not None and time.monotonic() >= current.deadline


def limited() -> bool:
    """Return whether a budget is open: slow work is to be put off, not done."""
    return _current.get() is not None


def defer() -> None:
    """Note that a stand-in was shown in place of a render."""
    current = _current.get()
    if current is not None:
        current.deferred += 1


def deferred() -> int:
    """Return how many renders were put off in the open budget (0 without one)."""
    current = _current.get()
    return 0 if current is None else current.deferred


class Watch:
    """Whether anything was put off inside a ``watch()`` block."""

    def __init__(self) -> None:
        self._start = deferred()
        self._end: int | None = None

    @property
    def provisional(self) -> bool:
        """Return whether a stand-in was shown inside the block (so far)."""
        end = deferred() if self._end is None else self._end
        return end != self._start


@contextmanager
def watch() -> Iterator[Watch]:
    """Tell whether the output made inside the block holds a stand-in."""
    seen = Watch()
    try:
        yield seen
    finally:
        seen._end = deferred()
