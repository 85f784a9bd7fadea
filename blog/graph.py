"""A post's neighbourhood laid out for a small SVG: deterministic, no script.

The post is in the middle; the posts that link to it on the left, the posts
it links to on the right; its series (or section) above it, with the posts
before and after it in the series just above and below it. The template
(``includes/post_graph.html``) draws what this returns, every node a link.
"""

import unicodedata
from dataclasses import dataclass
from typing import Any

# The drawing's width, in CSS pixels at its usual size (the table of
# contents' column); it scales with its box.
WIDTH = 240
CENTER_X = 120
LEFT_X = 78
RIGHT_X = 162
ROW = 26
# At most this many posts on each side; the backlinks list shows them all.
SIDE_CAP = 6
# A label's width, in ems of the drawing's font: about 5 Chinese characters.
LABEL_EMS = 5.8
SERIES_LABEL_EMS = 8.5


@dataclass
class Node:
    page: Any
    title: str
    label: str
    kind: str  # center, parent, previous, next, in, out
    x: float
    y: float
    # Where its label sits, and which way it runs from there.
    label_x: float
    label_y: float
    anchor: str

    def __post_init__(self):
        # Whole pixels: short attributes, the same text for the same layout.
        for name in ("x", "y", "label_x", "label_y"):
            setattr(self, name, round(getattr(self, name)))


@dataclass
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    kind: str


def char_ems(char: str) -> float:
    """Return a character's rough width in ems: wide (CJK) 1, others about half."""
    return 1.0 if unicodedata.east_asian_width(char) in "WF" else 0.56


def truncate(text: str, ems: float = LABEL_EMS) -> str:
    """Return ``text`` cut to about ``ems`` wide, with an ellipsis if it was cut."""
    if sum(char_ems(c) for c in text) <= ems:
        return text
    width, kept = 0.0, []
    for char in text:
        width += char_ems(char)
        if width > ems - 1:
            break
        kept.append(char)
    return "".join(kept).rstrip() + "…"


def layout(
    center, *, parent=None, previous=None, next=None, outgoing=(), incoming=()
) -> dict | None:
    """Return the drawing's ``width``, ``height``, ``nodes`` and ``edges``; None if alone.

    A post is shown once: in the series column if it is a neighbour there,
    else on the right if this post links to it, else on the left. Each side
    holds at most ``SIDE_CAP`` posts, in the order given.
    """
    seen = {center.pk}
    for page in (parent, previous, next):
        if page is not None:
            seen.add(page.pk)

    def fresh(pages):
        kept = []
        for page in pages:
            if page.pk not in seen and len(kept) < SIDE_CAP:
                seen.add(page.pk)
                kept.append(page)
        return kept

    right = fresh(outgoing)
    left = fresh(incoming)
    if not (parent or previous or next or left or right):
        return None

    top = 34 if parent is not None else 6
    body = max(max(len(left), len(right)) * ROW, 124 if (previous or next) else 64)
    legend = 16 if (left or right) else 0
    height = top + body + legend
    cy = top + body / 2

    nodes = [
        Node(center, center.title, truncate(center.title), "center", CENTER_X, cy,
             CENTER_X, cy + 20, "middle")
    ]  # fmt: skip
    if parent is not None:
        label = truncate(parent.title, SERIES_LABEL_EMS)
        nodes.append(
            Node(parent, parent.title, label, "parent", CENTER_X, 8, CENTER_X, 26, "middle")
        )  # fmt: skip
    if previous is not None:
        y = cy - 44
        nodes.append(
            Node(previous, previous.title, truncate(previous.title), "previous",
                 CENTER_X, y, CENTER_X, y - 9, "middle")
        )  # fmt: skip
    if next is not None:
        y = cy + 44
        nodes.append(
            Node(next, next.title, truncate(next.title), "next",
                 CENTER_X, y, CENTER_X, y + 18, "middle")
        )  # fmt: skip
    for pages, kind, x, label_x, anchor in (
        (left, "in", LEFT_X, LEFT_X - 7, "end"),
        (right, "out", RIGHT_X, RIGHT_X + 7, "start"),
    ):
        for i, page in enumerate(pages):
            y = top + body * (i + 0.5) / len(pages)
            nodes.append(
                Node(page, page.title, truncate(page.title), kind, x, y,
                     label_x, y + 4, anchor)
            )  # fmt: skip

    edges = [
        Edge(CENTER_X, round(cy), node.x, node.y, node.kind)
        for node in nodes
        if node.kind != "center"
    ]
    return {
        "width": WIDTH,
        "height": round(height),
        "nodes": nodes,
        "edges": edges,
        "legend_y": round(height - 4),
        "has_in": bool(left),
        "has_out": bool(right),
    }
