"""Raw HTML in a body: a block region, a directive comment, or an HTML fragment.

A fragment runs from its first tag to the line that closes it, over blank
lines (which end markdown-it's HTML block): `html` returns that line, and the
nodes before it are part of the fragment.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from .context import BodyContext
from .directives import directive
from .figures import html_fragment
from .regions import read_region
from .tags import TagDepths

_FIRST_TAG = re.compile(r"\s*<([A-Za-z][\w-]*)")


def html(ctx: BodyContext, node: list[Token]) -> int | None:
    """Convert an HTML block; return the source line its fragment ends before.

    None: the fragment is this node alone.
    """
    token = node[0]
    line = ctx.line(token)
    start = token.map[0] if token.map else 0
    if start in ctx.regions:
        read_region(ctx, ctx.regions[start], line)
        return None
    content = token.content.strip()
    if content.startswith("<!--"):
        directive(ctx, content, line)
        return None
    tag_match = _FIRST_TAG.match(content)
    end = token.map[1] if token.map else start + 1
    if tag_match is None:
        return None
    tag = tag_match.group(1).lower()
    if tag in ("br", "hr"):
        ctx.flush()
        return None
    end = balanced_end(ctx, tag, start, end)
    fragment = "\n".join(ctx.source_lines[start:end]).strip()
    html_fragment(ctx, fragment, line)
    return end


def balanced_end(ctx: BodyContext, tag: str, start: int, end: int) -> int:
    """Return the line after the one closing the ``<tag>`` opened at ``start``."""
    if tag in ("img", "input", "source", "meta", "link", "wbr", "embed"):
        return end
    if ctx.tag_depths is None:
        ctx.tag_depths = TagDepths(ctx.source_lines)
    closing = ctx.tag_depths.closing_line(tag, start)
    if closing is None:
        ctx.warn(f"<{tag}> is never closed", start + ctx.first_line)
        return end
    return max(closing + 1, end)
