"""Emoji shortcodes (``:warning:``, ``:rocket:``) as the emoji they name.

GitHub, Obsidian plugins and MkDocs (pymdownx.emoji) write emoji this way; the
names are the `emoji` package's aliases. MkDocs icon shortcodes
(``:fontawesome-solid-inbox:``, ``:material-…:``, ``:octicons-…:``,
``:simple-…:``) have no emoji: they become a ``shortcode_icon`` token that renders
as nothing, so a caller can report it. Only text is read: code spans, math and
link targets are parsed by other rules first, and ``12:30:45`` or a shortcode
inside a bare URL is left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

ICON_PREFIXES = ("fontawesome-", "material-", "octicons-", "simple-")

_SHORTCODE = re.compile(r":([a-z0-9_+\-]{1,64}):", re.IGNORECASE)
_SHORTCODE_AT_END = re.compile(r":([a-z0-9_+\-]{1,64}):$", re.IGNORECASE)


@lru_cache(maxsize=1024)
def emoji_for(name: str) -> str:
    """Return the emoji the alias ``name`` stands for, or ``""``."""
    import emoji  # 8 MB of tables, loaded when first asked (rendering/cjk.py)

    code = f":{name}:"
    found = emoji.emojize(code, language="alias")
    return "" if found == code else found


def is_icon(name: str) -> bool:
    """Return True for a MkDocs icon shortcode name (no emoji stands for it)."""
    return name.lower().startswith(ICON_PREFIXES)


def _follows_a_shortcode(state: StateInline, pos: int) -> bool:
    """Return whether the colon before ``pos`` closed a shortcode just converted."""
    match = _SHORTCODE_AT_END.search(state.src, max(0, pos - 66), pos)
    if match is None:
        return False
    found = emoji_for(match[1])
    if found:
        return state.pending.endswith(found)
    last = state.tokens[-1] if state.tokens else None
    return not state.pending and last is not None and last.type == "shortcode_icon"


def _shortcode(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != ":":
        return False
    before = src[pos - 1] if pos else " "
    if before == ":" and _follows_a_shortcode(state, pos):
        pass  # :skull::skull: (the colon before closed a shortcode)
    elif (before.isascii() and before.isalnum()) or before in ":/":
        return False  # 12:30:45, std::x, a/:b:
    match = _SHORTCODE.match(src, pos, state.posMax)
    if match is None:
        return False
    words = src[max(0, pos - 256) : pos].rsplit(None, 1)
    word = words[-1] if words and not src[pos - 1].isspace() else ""
    if "://" in word or word.lower().startswith("www."):
        return False
    name = match.group(1)
    found = emoji_for(name)
    if not found and not is_icon(name):
        return False
    if not silent:
        if found:
            state.pending += found
        else:
            token = state.push("shortcode_icon", "", 0)
            token.markup = match.group(0)
            token.meta = {"name": name}
    state.pos = match.end()
    return True


def _render_nothing(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    return ""


def emoji_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` emoji shortcodes; icon shortcodes render as nothing."""
    md.inline.add_terminator_char(":")
    md.inline.ruler.push("emoji_shortcode", _shortcode)
    md.add_render_rule("shortcode_icon", _render_nothing)
