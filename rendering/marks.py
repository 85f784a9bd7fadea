"""``==highlighted==`` text, as Obsidian and Quartz write it, shown as ``<mark>``.

A run of ``=`` is a delimiter like ``~~``: two of them open or close a
highlight, by the same flanking rules (the CJK-friendly ones where the parser
reads CJK text so, rendering/cjk.py), so ``a == b`` and ``x==y`` in prose
stay text, and ``这是==重点==内容`` is highlighted. A lone ``=`` and the
markers of a highlight never closed stay text.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import Delimiter, StateInline

_EQUALS = 0x3D


def _tokenize(state: StateInline, silent: bool) -> bool:
    """Push each pair of ``=`` as a text token and note it as a delimiter."""
    if silent or state.src[state.pos] != "=":
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    # An odd run (===) leaves one = as text: outside what it would close
    # (==x=== is <mark>x</mark>=), before what it would open.
    lone = length % 2
    closing = scanned.can_close and not scanned.can_open
    if lone and not closing:
        state.push("text", "", 0).content = "="
    for _ in range(length // 2):
        state.push("text", "", 0).content = "=="
        state.delimiters.append(
            Delimiter(
                marker=_EQUALS,
                length=0,  # pairs only: no "rule of 3"
                token=len(state.tokens) - 1,
                end=-1,
                open=scanned.can_open,
                close=scanned.can_close,
            )
        )
    if lone and closing:
        state.push("text", "", 0).content = "="
    state.pos += scanned.length
    return True


def _pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    """Turn each matched pair of ``==`` delimiters into ``<mark>`` and ``</mark>``."""
    for delimiter in delimiters:
        if delimiter.marker != _EQUALS or delimiter.end == -1:
            continue
        for index, nesting in (
            (delimiter.token, 1),
            (delimiters[delimiter.end].token, -1),
        ):
            token = state.tokens[index]
            token.type = "mark_open" if nesting == 1 else "mark_close"
            token.tag = "mark"
            token.nesting = nesting
            token.markup = "=="
            token.content = ""


def _post_process(state: StateInline) -> None:
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def mark_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` ``==highlight==``."""
    md.inline.ruler.before("emphasis", "mark", _tokenize)
    md.inline.ruler2.before("emphasis", "mark", _post_process)
