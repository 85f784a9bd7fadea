"""markdown-it with the site's plugins, and walks over the token stream it gives.

The parser has raw HTML on, so that figures and directive comments are seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from rendering.cjk import cjk_emphasis_plugin
from rendering.markdown import math_plugin
from rendering.shortcodes import emoji_plugin


def _build() -> MarkdownIt:
    """Return a parser with the site's plugins, raw HTML on (figures, comments)."""
    md = MarkdownIt(
        "commonmark", {"html": True, "linkify": False, "typographer": False}
    )
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(math_plugin)
    md.use(cjk_emphasis_plugin)
    md.use(emoji_plugin)
    return md


MD = _build()

# A dollar sign the source escaped (``\\$``, not ``\\\\$``), and what stands for it
# while parsing: markdown-it would unescape it, and the difference between a
# literal `\\$` and a bare `$` that opens no formula must survive into rich text.
_ESCAPED_DOLLAR = re.compile(r"(?<!\\)((?:\\\\)*)\\\$")
_DOLLAR_MARK = "\ue002"


def parse_markdown(text: str, env: dict | None = None) -> list[Token]:
    """Parse ``text``; an escaped dollar comes back as ``\\$`` in every token."""
    protected = _ESCAPED_DOLLAR.sub(lambda m: m.group(1) + _DOLLAR_MARK, text)
    tokens = MD.parse(protected, {} if env is None else env)
    for token in walk_children(tokens):
        if _DOLLAR_MARK in token.content:
            token.content = token.content.replace(_DOLLAR_MARK, "\\$")
        if _DOLLAR_MARK in token.info:
            token.info = token.info.replace(_DOLLAR_MARK, "\\$")
        for name, value in (token.attrs or {}).items():
            if isinstance(value, str) and _DOLLAR_MARK in value:
                token.attrs[name] = value.replace(_DOLLAR_MARK, "\\$")
    return tokens


def split_nodes(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split a flat token list into its top-level nodes (an open…close run each)."""
    nodes: list[list[Token]] = []
    i = 0
    while i < len(tokens):
        if tokens[i].nesting != 1:
            nodes.append([tokens[i]])
            i += 1
            continue
        depth, j = 0, i
        while j < len(tokens):
            depth += tokens[j].nesting
            if depth == 0:
                break
            j += 1
        nodes.append(list(tokens[i : j + 1]))
        i = j + 1
    return nodes


def walk_children(node: Sequence[Token]) -> Iterator[Token]:
    """Yield each token of ``node`` followed by its inline children."""
    for token in node:
        yield token
        yield from token.children or ()
