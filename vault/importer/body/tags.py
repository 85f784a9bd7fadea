"""Where each HTML element a body opens is closed, found in linear time."""

from __future__ import annotations

import bisect
import re

# An HTML start or end tag on one line; `<` inside a tag ends it, so a line of
# unclosed `<a ` costs linear time.
_ANY_TAG = re.compile(r"</([A-Za-z][\w-]*)\s*>|<([A-Za-z][\w-]*)(?=[\s>/])[^<>]*?(/?)>")


class TagDepths:
    """Where each HTML element opened on a line is closed, from one pass over a body.

    For every tag name, the net number of elements each line opens (start tags
    not self-closed, minus end tags) and, by a monotonic stack, the first later
    line where the depth falls back: so any number of unclosed `<div>`s costs
    linear time, not a scan to the end of the body for each.
    """

    def __init__(self, lines: list[str]) -> None:
        self._lines: dict[str, list[int]] = {}  # tag -> lines with a net change
        self._depths: dict[str, list[int]] = {}  # tag -> depth after those lines
        for number, text in enumerate(lines):
            net: dict[str, int] = {}
            for match in _ANY_TAG.finditer(text):
                if match.group(1):
                    name = match.group(1).lower()
                    net[name] = net.get(name, 0) - 1
                elif not match.group(3):
                    name = match.group(2).lower()
                    net[name] = net.get(name, 0) + 1
            for name, change in net.items():
                if change:
                    depths = self._depths.setdefault(name, [])
                    self._lines.setdefault(name, []).append(number)
                    depths.append((depths[-1] if depths else 0) + change)
        self._falls: dict[str, list[int | None]] = {}

    def closing_line(self, tag: str, start: int) -> int | None:
        """Return the first line from ``start`` on where the ``<tag>`` is closed.

        That is the first line where the depth of ``tag`` is back to what it
        was before ``start`` (``start`` itself when it opens nothing); None
        when the element is never closed.
        """
        lines = self._lines.get(tag, [])
        at = bisect.bisect_left(lines, start)
        if at == len(lines) or lines[at] != start:
            return start
        depths = self._depths[tag]
        before = depths[at - 1] if at else 0
        if depths[at] <= before:
            return start
        falls = self._falls.get(tag)
        if falls is None:
            falls = self._falls[tag] = _next_not_above(depths)
        fall = falls[at]
        return None if fall is None else lines[fall]


def _next_not_above(values: list[int]) -> list[int | None]:
    """Return, for each index i, the first j > i with ``values[j] <= values[i - 1]``.

    ``values[-1]`` counts as 0 (the depth before the first line).
    """
    padded = [0, *values]
    nearest: list[int | None] = [None] * len(padded)
    stack: list[int] = []
    for j, value in enumerate(padded):
        while stack and value <= padded[stack[-1]]:
            nearest[stack.pop()] = j
        stack.append(j)
    # Index i of `values` asks about padded[i] (the depth before it): padded
    # index j is values index j - 1.
    return [None if k is None else k - 1 for k in nearest[: len(values)]]
