"""Lists as rich text, split around the images that end their items.

A list whose content rich text cannot say (a footnote, code or display math
inside) is kept as a Markdown block instead. `rich_body` is the rich text of a
callout's or a quote's body: paragraphs and such lists.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..inline import DisplayMath, ImageRef
from .context import BodyContext
from .fallback import markdown
from .footnotes import footnote_labels
from .images import image
from .prose import EDGE_BREAKS

_TAGS = re.compile(r"<[^>]*>")
_VISIBLE = re.compile(r"[^\s\u00a0]")


def list_(ctx: BodyContext, node: list[Token]) -> None:
    line = ctx.line(node[0])
    if footnote_labels(node):
        markdown(ctx, node)
        return
    parts = list_html(ctx, node)
    if parts is None:
        markdown(ctx, node)
        return
    for part in parts:
        if not isinstance(part, str):
            image(ctx, part)
        elif part:
            ctx.add_prose(part, line)


def list_html(ctx: BodyContext, node: list[Token]) -> list[str | ImageRef] | None:
    """Return a list as rich-text HTML, split around the images it shows.

    An image ending a top-level item (a step, then its figure) follows that
    item, and the list goes on after it, an ordered one at the next number.
    None means rich text cannot say the list: it holds blocks (code,
    tables…), display math, or an image elsewhere (within an item's text,
    in a nested item), which only a Markdown block keeps in place.
    """
    parts: list[str | ImageRef] = []
    out: list[str] = []
    paragraphs: list[int] = []  # paragraphs seen in each open <li>
    lists: list[str] = []  # the open list tags
    pending: list[ImageRef] = []  # images ending the current top-level item
    number = 1  # of the next top-level item
    for token in node:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            tag = "ul" if kind == "bullet_list_open" else "ol"
            start = token.attrGet("start") if tag == "ol" else None
            if not lists and start is not None:
                number = int(start)
            out.append(
                f'<ol start="{start}">' if start not in (None, 1) else f"<{tag}>"
            )
            lists.append(tag)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            out.append(f"</{lists.pop()}>")
        elif kind == "list_item_open":
            if len(lists) == 1 and pending:
                # Split: the list so far, the images, then the rest of it.
                out.append(f"</{lists[0]}>")
                parts.append(_tidy("".join(out)))
                parts.extend(pending)
                out, pending = [], []
                opening = "<ol>" if number == 1 else f'<ol start="{number}">'
                out.append(opening if lists[0] == "ol" else "<ul>")
            out.append("<li>")
            paragraphs.append(0)
        elif kind == "list_item_close":
            out.append("</li>")
            paragraphs.pop()
            if not paragraphs:
                number += 1
        elif kind == "paragraph_open":
            if paragraphs and paragraphs[-1]:
                out.append("<br/>")
            if paragraphs:
                paragraphs[-1] += 1
        elif kind == "paragraph_close":
            continue
        elif kind == "inline":
            for piece in ctx.inline.pieces(
                token.children or [], ctx.line(token), token.content
            ):
                if isinstance(piece, DisplayMath):
                    return None
                if isinstance(piece, ImageRef):
                    if len(lists) > 1:
                        return None
                    pending.append(piece)
                elif pending and _VISIBLE.search(_TAGS.sub("", piece)):
                    return None  # text after the image, in its item
                else:
                    out.append(piece)
        else:
            return None
    parts.append(_tidy("".join(out)))
    parts.extend(pending)
    return parts


def rich_body(ctx: BodyContext, items: list) -> str | None:
    """Return the rich text of a callout or quote body, or None if it cannot be.

    ``items`` are (children, line, source) for paragraphs, and nodes. A body
    showing an image is None too: a Markdown block keeps the image in place.
    """
    parts: list[str] = []
    for item in items:
        if isinstance(item, tuple):
            children, line, raw = item
        elif item[0].type == "paragraph_open":
            children, line, raw = (
                item[1].children or [],
                ctx.line(item[0]),
                item[1].content,
            )
        elif item[0].type in ("bullet_list_open", "ordered_list_open"):
            converted = list_html(ctx, item)
            if converted is None or len(converted) > 1:
                return None
            parts.append(converted[0])
            continue
        else:
            return None
        pieces = ctx.inline.pieces(children, line, raw)
        if any(not isinstance(p, str) for p in pieces):
            return None
        markup = EDGE_BREAKS.sub("", "".join(pieces))
        if markup:
            parts.append(f"<p>{markup}</p>")
    return "".join(parts)


def _tidy(markup: str) -> str:
    """Drop what an image leaves at the end of its item: breaks, an empty item."""
    markup = re.sub(r"(?:<br/>|\s)+</li>", "</li>", markup)
    markup = markup.replace("<li></li>", "")
    return re.sub(r'<(ul|ol)(?: start="\d+")?></\1>', "", markup)
