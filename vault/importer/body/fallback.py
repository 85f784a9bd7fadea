"""The Markdown block: a node kept as its source, for what rich text cannot hold.

A footnote, or code or display math inside a list, quote or callout, cannot be
said in rich text: the node's source lines become a Markdown block, with the
definitions of the footnotes it refers to, its images put in the media library
and its links to other files as link markers.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..inline import LinkRef, escape_text, plain_to_markdown
from ..links import WIKILINK, is_markdown_target, parse_wikilink
from ..theme import drop_placeholders_in_source
from .context import BodyContext
from .footnotes import footnote_labels
from .images import markdown_images

# A callout's first line in source, at any depth (in a list item, a quote).
_CALLOUT_LINE = re.compile(r"[ \t]*(?:>[ \t]*)+\[![A-Za-z][\w-]*\]")
_MD_LINK = re.compile(
    r"(?<!!)\[((?:\\.|[^\[\]\n])*)\]\(\s*<?([^()\s<>]+)>?"
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
_FENCE_LINE = re.compile(r"\s{0,3}(```|~~~)")


def markdown(ctx: BodyContext, node: list[Token]) -> None:
    """Keep a node as a Markdown block: footnotes, or what rich text cannot say.

    The block holds the node's source and the definitions of the footnotes it
    references, so each note stays with its reference.
    """
    line = ctx.line(node[0])
    # One node, or several a comment spans (`comments.commented`).
    maps = [token.map for token in node if token.map] or [(0, 0)]
    start, end = maps[0][0], max(last for _, last in maps)
    parts = [_source(ctx, start, end)]
    for label in footnote_labels(node):
        if label in ctx.footnotes:
            first, last = ctx.footnotes[label]
            parts.append(_source(ctx, first, last))
            ctx.shown_notes.add(label)
            if label in ctx.empty_notes:
                ctx.warn(f"footnote [^{label}] has an empty definition", line)
        else:
            ctx.warn(f"footnote [^{label}] has no definition", line)
    # Placeholders were warned of with the text they stood in.
    source = drop_placeholders_in_source("\n\n".join(parts))
    source = markdown_images(ctx, source, line)
    ctx.emit("markdown", _markdown_links(ctx, source, line), line)


def _source(ctx: BodyContext, start: int, end: int) -> str:
    """Return source lines ``start:end``; a soft break made hard ends in ``\\``.

    A callout's ``[!TYPE] title`` line never does: its end is the title's.
    """
    lines = [
        text.rstrip(" \t") + "\\"
        if number in ctx.hard_lines and not _CALLOUT_LINE.match(text)
        else text
        for number, text in enumerate(ctx.source_lines[start:end], start)
    ]
    return "\n".join(lines).strip("\n")


def _markdown_links(ctx: BodyContext, source: str, line: int) -> str:
    """Replace links to other files in Markdown source with link markers."""
    out = []
    in_fence = False
    for offset, text in enumerate(source.split("\n")):
        if _FENCE_LINE.match(text):
            in_fence = not in_fence
        if not in_fence:
            text = _MD_LINK.sub(lambda m, at=line + offset: _md_link(ctx, m, at), text)
            text = WIKILINK.sub(lambda m, at=line + offset: _wiki(ctx, m, at), text)
        out.append(text)
    return "\n".join(out)


def _md_link(ctx: BodyContext, match: re.Match, line: int) -> str:
    if not is_markdown_target(match.group(2)):
        return match.group(0)
    label = match.group(1)
    ref = LinkRef(match.group(2), False, escape_text(label), label, line, markdown=True)
    return ctx.collector.link(ref)


def _wiki(ctx: BodyContext, match: re.Match, line: int) -> str:
    wiki = parse_wikilink(match.group(2))
    if match.group(1) or not wiki.target:
        return match.group(0)
    label = plain_to_markdown(wiki.label)
    ref = LinkRef(
        wiki.target, True, escape_text(wiki.label), label, line, markdown=True
    )
    return ctx.collector.link(ref)
