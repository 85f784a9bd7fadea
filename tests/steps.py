"""Count the work a parser does, to show it grows linearly with hostile input."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from types import CodeType


def lines_run(call: Callable[[], object], functions: Iterable[Callable]) -> int:
    """Return how many lines of ``functions`` ran while ``call()`` ran.

    A line event per loop iteration is a step counter that needs no hook in the
    code under test, and it does not depend on the machine's speed.
    """
    codes: set[CodeType] = {f.__code__ for f in functions}
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code in codes else None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


def grows_linearly(steps: Callable[[int], int], n: int) -> bool:
    """Return True if doubling the input (``n`` → ``2n``) at most ~doubles the steps.

    Quadratic work quadruples; allow 2.5× for constant costs.
    """
    small, large = steps(n), steps(2 * n)
    return large <= 2.5 * max(small, 1)
