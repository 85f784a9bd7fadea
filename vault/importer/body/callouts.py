"""Callouts: Obsidian's ``> [!NOTE] title`` and MkDocs' ``!!! note "Title"``.

A callout whose body rich text cannot say (a footnote, code or display math
inside, an image) is kept as a Markdown block instead.
"""

from __future__ import annotations

import copy
import re

from markdown_it.token import Token

from rendering.callouts import CALLOUT_TYPES

from ..tokens import split_nodes
from .context import BodyContext
from .fallback import markdown
from .footnotes import footnote_labels
from .lists import rich_body

CALLOUT = re.compile(r"\s*\[!([A-Za-z][\w-]*)\]([-+]?)[ \t]*")


def callout(
    ctx: BodyContext,
    node: list[Token],
    inner: list[list[Token]],
    marker: re.Match,
    line: int,
) -> None:
    """Import a quote whose first line is ``[!TYPE] title`` (`quotes.blockquote`)."""
    written = marker.group(1).lower()
    kind = CALLOUT_TYPES.get(written)
    if kind is None:
        ctx.warn(f"unknown callout type [!{marker.group(1)}]; imported as a note", line)
        kind = "note"
    raw = inner[0][1].content
    children = list(inner[0][1].children or [])
    split = next(
        (k for k, c in enumerate(children) if c.type in ("softbreak", "hardbreak")),
        len(children),
    )
    title_children, body_children = children[:split], children[split + 1 :]
    if title_children and title_children[0].type == "text":
        head = copy.copy(title_children[0])
        head.content = CALLOUT.sub("", head.content, count=1)
        title_children[0] = head
    title = ctx.inline.text(title_children, raw)
    items: list = []
    if body_children:
        items.append((body_children, line + 1, raw))
    items.extend(inner[1:])
    markup = rich_body(ctx, items)
    if markup is None:
        markdown(ctx, node)
        return
    _emit_callout(ctx, kind, title, title_children, raw, markup, line)


def _emit_callout(
    ctx: BodyContext,
    kind: str,
    title: str,
    title_children: list[Token],
    title_raw: str,
    markup: str,
    line: int,
) -> None:
    """Emit a callout; a title with no body becomes the body, under the label."""
    if not markup:
        if not title:
            ctx.warn("empty callout; dropped", line)
            return
        one_line = rich_body(ctx, [(title_children, line, title_raw)])
        markup, title = one_line or "", ""
    ctx.emit("callout", {"kind": kind, "title": title[:255], "body": markup}, line)


def admonition(ctx: BodyContext, node: list[Token]) -> None:
    """Import a MkDocs admonition (``!!! note "Title"``, ``??? tip``) as a callout.

    A collapsible one is shown open; ``!!! note ""`` (no title bar) gets the
    callout's kind label, as every callout block has a title bar.
    """
    line = ctx.line(node[0])
    written = node[0].meta.get("tag", "")
    kind = CALLOUT_TYPES.get(written)
    if kind is None:
        ctx.warn(f"unknown admonition type !!! {written}; imported as a note", line)
        kind = "note"
    if footnote_labels(node):
        markdown(ctx, node)
        return
    inner = node[1:-1]
    title = ""
    title_children: list[Token] = []
    if inner and inner[0].type == "admonition_title_open":
        # Without a title of its own, the admonition is titled by its type.
        if len(node[0].info.split()) > 1:
            title_children = inner[1].children or []
            title = ctx.inline.text(title_children, inner[1].content)
        inner = inner[3:]
    markup = rich_body(ctx, split_nodes(inner))
    if markup is None:
        markdown(ctx, node)
        return
    _emit_callout(ctx, kind, title, title_children, node[0].info, markup, line)
