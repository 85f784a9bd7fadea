"""markdown-it with the site's plugins, and walks over the token stream it gives.

The parser has raw HTML on, so that figures and directive comments are seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline, newline
from markdown_it.token import Token

from rendering import parser


def _newline_with_offset(state: StateInline, silent: bool) -> bool:
    """Parse a newline as markdown-it does; a soft break keeps its offset in meta.

    The offset is in the inline token's ``content``, so a caller can tell which
    source line a soft break ends (see `soft_break_lines`).
    """
    start = state.pos
    if not newline(state, silent):
        return False
    if not silent and state.tokens and state.tokens[-1].type == "softbreak":
        state.tokens[-1].meta = {"offset": start}
    return True


def _nesting_probe(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Note the first line nested deeper than ``env["max_nesting"]``; match nothing."""
    limit = state.env.get("max_nesting") if isinstance(state.env, dict) else None
    if limit is not None and state.level > limit and "too_deep" not in state.env:
        state.env["too_deep"] = start
    return False


def _build() -> MarkdownIt:
    """Return a parser with the site's plugins, raw HTML on (figures, comments)."""
    md = parser.new_parser(html=True)
    md.inline.ruler.at("newline", _newline_with_offset)
    md.inline.ruler.after("image", "spaced_image", _spaced_image)
    md.block.ruler.before("table", "nesting_probe", _nesting_probe)
    return md


# An image whose path holds spaces, which CommonMark does not read as one but
# Obsidian and Typora do: ``![a figure](img/my figure.png "title")``.
_SPACED_IMAGE = re.compile(
    r"!\[((?:\\.|[^\[\]\n])*)\]\([ \t]*"
    r"([^\s()<>\"']+(?:[ \t]+[^\s()<>\"']+)+?\.(?:png|jpe?g|gif|webp|svg|avif|bmp))"
    r"""(?:[ \t]+(?:"([^"\n]*)"|'([^'\n]*)'))?[ \t]*\)""",
    re.IGNORECASE,
)


def _spaced_image(state: StateInline, silent: bool) -> bool:
    """Read ``![alt](path with spaces.png)`` as an image, as Obsidian does."""
    if not state.src.startswith("![", state.pos):
        return False
    match = _SPACED_IMAGE.match(state.src, state.pos, state.posMax)
    if match is None:
        return False
    if not silent:
        token = state.push("image", "img", 0)
        token.attrs = {"src": match.group(2), "alt": ""}
        token.content = match.group(1)
        token.children = []
        state.md.inline.parse(match.group(1), state.md, state.env, token.children)
        title = match.group(3) if match.group(3) is not None else match.group(4)
        if title:
            token.attrs["title"] = title
    state.pos = match.end()
    return True


MD = _build()

# A dollar sign the source escaped (``\\$``, not ``\\\\$``), and what stands for it
# while parsing: markdown-it would unescape it, and the difference between a
# literal `\\$` and a bare `$` that opens no formula must survive into rich text.
_ESCAPED_DOLLAR = re.compile(r"(?<!\\)((?:\\\\)*)\\\$")
_DOLLAR_MARK = "\ue002"


def parse_markdown(text: str, env: dict | None = None) -> list[Token]:
    """Parse ``text``; an escaped dollar comes back as ``\\$`` in every token.

    With ``env["max_nesting"]`` set, ``env["too_deep"]`` is left at the first
    (0-based) line nested deeper.
    """
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


def fence_language(info: str) -> str:
    """Return a fence's language as the importer reads it (``python:main.py``: python)."""
    return parser.fence_language(info, colon_filename=True)


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


def soft_break_lines(tokens: Sequence[Token]) -> set[int]:
    """Return the source lines (0-based, of the parsed text) a soft break ends."""
    lines: set[int] = set()
    for token in tokens:
        if token.type != "inline" or not token.map:
            continue
        for child in token.children or ():
            if child.type == "softbreak" and "offset" in (child.meta or {}):
                offset = child.meta["offset"]
                lines.add(token.map[0] + token.content.count("\n", 0, offset))
    return lines
