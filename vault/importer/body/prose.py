"""Paragraphs: rich text, joined with the prose around them into one block.

Consecutive prose (paragraphs, lists that rich text can say) is one
paragraph block; an image or a display formula in a paragraph ends it and
becomes a block of its own, and the prose goes on after it.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..inline import DisplayMath
from .context import BodyContext
from .fallback import markdown
from .footnotes import footnote_labels
from .formulas import display_math
from .images import image
from .notes import note
from .tables import caption

# A trailing run is matched only from its start (the lookbehinds), so a long run
# of spaces inside a paragraph costs linear time, not quadratic.
EDGE_BREAKS = re.compile(r"^(?:\s|<br/>)+|(?<!\s)(?<!<br/>)(?:\s|<br/>)+$")


def paragraph(ctx: BodyContext, node: list[Token]) -> None:
    inline = node[1]
    children = inline.children or []
    line = ctx.line(node[0])
    if caption(ctx, inline):
        return
    if footnote_labels(node):
        markdown(ctx, node)
        return
    if note(ctx, inline.content, line):
        return
    add_pieces(ctx, ctx.inline.pieces(children, line, inline.content), line)


def add_pieces(ctx: BodyContext, pieces: list, line: int) -> None:
    """Add a paragraph's pieces: HTML runs as prose, images and math as blocks."""
    run: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            run.append(piece)
            continue
        _prose_paragraph(ctx, run, line)
        run = []
        if isinstance(piece, DisplayMath):
            display_math(ctx, piece.tex, "", piece.line)
        else:
            image(ctx, piece)
    _prose_paragraph(ctx, run, line)


def _prose_paragraph(ctx: BodyContext, run: list[str], line: int) -> None:
    markup = EDGE_BREAKS.sub("", "".join(run))
    if markup:
        ctx.add_prose(f"<p>{markup}</p>", line)
