"""Callouts: Obsidian's and GitHub's ``> [!NOTE]`` and MkDocs' ``!!! note`` admonitions.

Both become one ``<aside class="callout callout-KIND">`` with a title paragraph;
the written type is mapped onto five canonical kinds (`CALLOUT_TYPES`).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

# Canonical callout types, then what Obsidian and GitHub also accept.
CALLOUT_TYPES: dict[str, str] = {
    "note": "note",
    "tip": "tip",
    "info": "info",
    "warning": "warning",
    "danger": "danger",
    "important": "info",
    "caution": "warning",
    "attention": "warning",
    "error": "danger",
    "failure": "danger",
    "fail": "danger",
    "missing": "danger",
    "bug": "danger",
    "hint": "tip",
    "success": "tip",
    "check": "tip",
    "done": "tip",
    "abstract": "info",
    "summary": "info",
    "tldr": "info",
    "question": "info",
    "help": "info",
    "faq": "info",
    "todo": "note",
    "example": "note",
    "quote": "note",
    "cite": "note",
}

_CALLOUT_MARKER = re.compile(r"\[!([A-Za-z]+)\]([-+]?)(?:[ \t]+(.*))?")


def _new_token(type_: str, tag: str, nesting: int, level: int) -> Token:
    """Return a block token for the callout title."""
    token = Token(type_, tag, nesting)  # type: ignore[arg-type]
    token.block = True
    token.level = level
    return token


def _callouts(state: StateCore) -> None:
    """Turn blockquotes opening with ``[!TYPE] title`` into callout tokens."""
    tokens = state.tokens
    i = 0
    while i < len(tokens) - 2:
        opening = tokens[i]
        paragraph, inline = tokens[i + 1], tokens[i + 2]
        if not (
            opening.type == "blockquote_open"
            and paragraph.type == "paragraph_open"
            and inline.type == "inline"
        ):
            i += 1
            continue
        first_line, _, rest = inline.content.partition("\n")
        match = _CALLOUT_MARKER.fullmatch(first_line.strip())
        kind = CALLOUT_TYPES.get(match.group(1).lower()) if match else None
        if match is None or kind is None:
            i += 1
            continue
        written = match.group(1).lower()
        title_text = (match.group(3) or "").strip() or written.capitalize()

        opening.type, opening.tag = "callout_open", "aside"
        opening.attrSet("class", f"callout callout-{kind}")
        opening.meta = {"kind": kind, "fold": match.group(2)}
        for closing in tokens[i + 1 :]:
            if closing.type == "blockquote_close" and closing.level == opening.level:
                closing.type, closing.tag = "callout_close", "aside"
                break

        level = paragraph.level
        title_open = _new_token("paragraph_open", "p", 1, level)
        title_open.attrSet("class", "callout-title")
        title_open.map = paragraph.map
        title = _new_token("inline", "", 0, level + 1)
        title.content, title.children, title.map = title_text, [], paragraph.map
        title_close = _new_token("paragraph_close", "p", -1, level)

        if rest.strip():
            inline.content = rest
            tokens[i + 1 : i + 1] = [title_open, title, title_close]
        else:  # the marker line was the whole first paragraph
            tokens[i + 1 : i + 4] = [title_open, title, title_close]
        i += 4


def _admonitions(state: StateCore) -> None:
    """Turn MkDocs admonitions (``!!! note "Title"``, ``??? tip``) into callouts.

    An unknown type is a note; ``!!! note ""`` has no title bar; a collapsible
    one is shown open, as the ``-``/``+`` fold of a ``> [!NOTE]`` is.
    """
    for token in state.tokens:
        if token.type in ("admonition_open", "admonition_close"):
            kind = CALLOUT_TYPES.get(token.meta.get("tag", ""), "note")
            token.tag = "aside"
            if token.type == "admonition_open":
                token.type = "callout_open"
                token.attrs = {"class": f"callout callout-{kind}"}
            else:
                token.type = "callout_close"
        elif token.type == "admonition_title_open":
            token.type, token.attrs = "paragraph_open", {"class": "callout-title"}
        elif token.type == "admonition_title_close":
            token.type = "paragraph_close"


def callout_plugin(md: MarkdownIt) -> None:
    """Turn ``> [!TYPE]`` quotes and MkDocs admonitions into callouts."""
    md.core.ruler.after("block", "callouts", _callouts)
    md.core.ruler.after("callouts", "admonitions", _admonitions)
