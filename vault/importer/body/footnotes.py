"""Footnotes: where each is defined, and which a node refers to.

Rich text cannot hold a footnote: a node that refers to one is kept as a
Markdown block with the definitions it refers to (`fallback.markdown`), and a
heading's notes are shown after the body (`headings.heading_notes`).
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from ..tokens import walk_children
from .context import BodyContext


def collect_footnotes(ctx: BodyContext) -> None:
    """Map each footnote label to the source lines of its definition."""
    label = None
    start = end = 0
    for token in ctx.tokens:
        if token.type == "footnote_open":
            label, start, end = token.meta.get("label"), 10**9, -1
            ctx.note_tokens[label] = []
        elif token.type == "footnote_close" and label is not None:
            if end >= 0:
                ctx.footnotes[label] = (start, end)
            elif (found := _definition_line(ctx, label)) is not None:
                ctx.footnotes[label] = (found, found + 1)
                ctx.empty_notes.add(label)
            label = None
        elif label is not None:
            ctx.note_tokens[label].append(token)
            if token.map:
                start, end = min(start, token.map[0]), max(end, token.map[1])


def _definition_line(ctx: BodyContext, label: str) -> int | None:
    """Return the 0-based line defining footnote ``label``, or None."""
    return next(
        (
            n
            for n, text in enumerate(ctx.source_lines)
            if text.lstrip().startswith(f"[^{label}]:")
        ),
        None,
    )


def footnote_labels(node: Sequence[Token]) -> list[str]:
    labels: list[str] = []
    for token in walk_children(node):
        if token.type == "footnote_ref":
            label = token.meta.get("label")
            if label not in labels:
                labels.append(label)
    return labels
