"""Headings: h2–h4 blocks; the first ``# H1`` may be the post's title instead.

A heading is plain text: the images it shows become image blocks after it,
and the footnotes it refers to are shown after the body (`heading_notes`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from markdown_it.token import Token

from rendering import HEADING_MAX_LENGTH

from ..inline import (
    IMAGE_SUFFIXES,
    ImageRef,
    attr_width,
    embed_width,
    escape_text,
    html_attrs,
)
from ..links import WIKILINK, parse_wikilink
from .comments import holds_comment
from .context import BodyContext
from .footnotes import footnote_labels
from .images import IMG_TAG, image
from .prose import add_pieces


def heading(ctx: BodyContext, node: list[Token]) -> None:
    line = ctx.line(node[0])
    children, images = _heading_images(node[1].children or [], line)
    _heading_text(ctx, node, children, line)
    # A heading is plain text: its images (an author's photo beside the
    # name, a logo) are image blocks right after it.
    for ref in images:
        image(ctx, ref)


def is_title(ctx: BodyContext, node: list[Token]) -> bool:
    """Return whether ``node`` is the first H1, which may be the post's title."""
    return node[0].type == "heading_open" and node[0].tag == "h1" and not ctx.h1_seen


def _heading_text(
    ctx: BodyContext, node: list[Token], children: list[Token], line: int
) -> None:
    level = int(node[0].tag[1])
    text = ctx.inline.text(children, node[1].content)
    for label in footnote_labels(node):
        ctx.heading_notes.setdefault(label, line)
    if level == 1 and not ctx.h1_seen:
        ctx.h1_seen = True
        if holds_comment(node):
            ctx.warn("a %%comment%% in the title heading is left out", line)
        if ctx.title is None:
            # Only a heading that opens the file titles it (as the old site
            # read it); a later one is a heading like any other.
            if ctx.at_start:
                ctx.result.h1 = text
                return
        elif _same_title(text, ctx.title):
            return
    if not text:
        return
    if len(text) > HEADING_MAX_LENGTH:
        ctx.warn(
            f"heading longer than {HEADING_MAX_LENGTH} characters; "
            "imported as a bold paragraph",
            line,
        )
        ctx.add_prose(f"<p><b>{html.escape(text, quote=False)}</b></p>", line)
        return
    tag = "h2" if level <= 2 else "h3" if level == 3 else "h4"
    ctx.emit("heading", {"text": text, "level": tag}, line)


def heading_notes(ctx: BodyContext) -> None:
    """Show after the body the notes headings refer to, as ``[label] text``.

    A heading is plain text and cannot hold a footnote: it keeps the marker
    ``[label]`` (see `InlineConverter.text`), and the note is not lost.
    """
    for label, line in ctx.heading_notes.items():
        if label in ctx.shown_notes:
            continue
        inlines = [
            token for token in ctx.note_tokens.get(label, ()) if token.type == "inline"
        ]
        if not inlines:
            ctx.warn(f"footnote [^{label}] in a heading has no text", line)
            continue
        for index, token in enumerate(inlines):
            at = ctx.line(token)
            pieces = ctx.inline.pieces(token.children or [], at, token.content)
            if index == 0:
                pieces.insert(0, escape_text(f"[{label}] "))
            add_pieces(ctx, pieces, at)


def _same_title(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _heading_images(
    children: Sequence[Token], line: int
) -> tuple[list[Token], list[ImageRef]]:
    """Split a heading's inline tokens into its text and the images it shows.

    ``![alt](src)``, ``<img src>`` and ``![[name.png]]`` are taken out (their
    alt text too), so the heading keeps only its words.
    """
    kept: list[Token] = []
    images: list[ImageRef] = []
    for token in children:
        if token.type == "image":
            alt = re.sub(r"\\([][])", r"\1", token.content)
            images.append(
                ImageRef(
                    token.attrGet("src") or "",
                    alt,
                    token.attrGet("title") or "",
                    line,
                    attr_width(token.meta.get("width")),
                )
            )
            continue
        if token.type == "html_inline" and IMG_TAG.fullmatch(token.content.strip()):
            attrs = html_attrs(token.content)
            if attrs.get("src"):
                images.append(
                    ImageRef(
                        attrs["src"], attrs.get("alt", ""), attrs.get("title", ""), line
                    )
                )
            continue
        if token.type == "text" and "![[" in token.content:

            def embed(match: re.Match) -> str:
                wiki = parse_wikilink(match.group(2))
                if not match.group(1) or not wiki.target.lower().endswith(
                    IMAGE_SUFFIXES
                ):
                    return match.group(0)
                width = embed_width(wiki.text)
                alt = "" if width else wiki.text
                images.append(ImageRef(wiki.target, alt, "", line, width))
                return ""

            token = token.copy(content=WIKILINK.sub(embed, token.content))
        kept.append(token)
    return kept, images
