"""Quotes: a quote block, with its source from a closing ``— Author`` line.

A quote whose first line is ``[!TYPE]`` is a callout (`callouts.callout`);
one whose body rich text cannot say is kept as a Markdown block.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..tokens import split_nodes
from .callouts import CALLOUT, callout
from .context import BodyContext
from .fallback import markdown
from .footnotes import footnote_labels
from .lists import rich_body

_SOURCE_DASH = re.compile(r"^(?:—{1,2}|―{1,2}|–|--)\s*(\S.*)$")


def blockquote(ctx: BodyContext, node: list[Token]) -> None:
    line = ctx.line(node[0])
    if footnote_labels(node):
        markdown(ctx, node)
        return
    inner = split_nodes(node[1:-1])
    first = inner[0] if inner else []
    marker = None
    if first and first[0].type == "paragraph_open":
        marker = CALLOUT.match(first[1].content)
    if marker is not None:
        callout(ctx, node, inner, marker, line)
    else:
        _quote(ctx, node, inner, line)


def _quote(
    ctx: BodyContext, node: list[Token], inner: list[list[Token]], line: int
) -> None:
    items: list = list(inner)
    source = ""
    last = items[-1] if items else None
    if last is not None and last[0].type == "paragraph_open":
        children = list(last[1].children or [])
        breaks = [
            k for k, c in enumerate(children) if c.type in ("softbreak", "hardbreak")
        ]
        cut = breaks[-1] + 1 if breaks else 0
        raw = last[1].content
        match = _SOURCE_DASH.match(ctx.inline.text(children[cut:], raw))
        if match:
            source = match.group(1).strip()
            kept = children[: breaks[-1]] if breaks else []
            items[-1] = (kept, ctx.line(last[0]), raw)
    markup = rich_body(ctx, items)
    if markup is None:
        markdown(ctx, node)
        return
    if not markup:
        ctx.warn("empty quote; dropped", line)
        return
    ctx.emit("quote", {"quote": markup, "source": source[:255]}, line)
