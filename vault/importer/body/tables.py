"""Tables: a table block of plain-text cells, and its ``Table: …`` caption.

A table whose cells show an image or refer to a footnote is kept as a
Markdown block, as a table block's cells are plain text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from ..inline import IMAGE_SUFFIXES
from ..links import WIKILINK
from ..tokens import walk_children
from .context import BodyContext
from .fallback import markdown
from .footnotes import footnote_labels
from .images import IMG_TAG

_CAPTION = re.compile(r"Table[:：]\s*\S", re.IGNORECASE)
_CAPTION_PREFIX = re.compile(r"^Table[:：]\s*", re.IGNORECASE)


def table(ctx: BodyContext, node: list[Token]) -> None:
    line = ctx.line(node[0])
    if footnote_labels(node) or _shows_image(node):
        # A table block's cells are plain text: a Markdown block keeps both.
        markdown(ctx, node)
        return
    rows: list[list[str]] = []
    row: list[str] | None = None
    for token in node:
        if token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            rows.append(row)
            row = None
        elif token.type == "inline" and row is not None:
            row.append(ctx.inline.text(token.children or [], token.content))
    width = max((len(r) for r in rows), default=0)
    data = [r + [""] * (width - len(r)) for r in rows]
    value = {
        "table_caption": "",
        "table_header_choice": "row",
        "first_row_is_table_header": True,
        "first_col_is_header": False,
        "data": data,
    }
    ctx.emit("table", value, line)


def caption(ctx: BodyContext, inline: Token) -> bool:
    """Make a one-line ``Table: …`` paragraph right after a table its caption.

    Return whether the paragraph was one.
    """
    last = ctx.result.blocks[-1] if ctx.result.blocks else None
    if (
        ctx.previous == "table_open"
        and last is not None
        and last.type == "table"
        and _CAPTION.match(inline.content)
        and "\n" not in inline.content.strip()
    ):
        text = ctx.inline.text(inline.children or [], inline.content)
        last.value["table_caption"] = _CAPTION_PREFIX.sub("", text)
        return True
    return False


def _shows_image(node: Sequence[Token]) -> bool:
    """Return True if ``node`` shows an image (``![]()``, ``![[x.png]]``, ``<img>``)."""
    for token in walk_children(node):
        if token.type == "image" or (
            token.type == "html_inline" and IMG_TAG.search(token.content)
        ):
            return True
        if token.type == "text" and any(
            match.group(1)
            and match.group(2).split("|")[0].strip().lower().endswith(IMAGE_SUFFIXES)
            for match in WIKILINK.finditer(token.content)
        ):
            return True
    return False
