"""The one markdown-it parser factory, and the walks over the tokens it gives.

Markdown blocks (`markdown`), readers' comments (`comments`) and the vault
importer each build their parser with `new_parser`, then add what is theirs:
render rules, callouts and heading anchors, or the importer's own token rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from .cjk import cjk_emphasis_plugin
from .marks import mark_plugin
from .math_syntax import math_plugin
from .mkdocs import mkdocs_plugin
from .obsidian_comments import comment_plugin
from .shortcodes import emoji_plugin

# Math token types -> display mode. math_inline_double is $$…$$ inside a
# paragraph (and \[…\] inside one): display style, in a <span> to stay valid HTML.
MATH_TOKENS = {
    "math_inline": False,
    "math_inline_double": True,
    "math_block": True,
    "amsmath": True,
}

# How deep blocks may nest (each list is two levels, list and item; each quote
# one). markdown-it's own default of 20 drops whatever is deeper, and the rest
# of the document with it; the importer refuses a file nested deeper than its
# limit (at most this) rather than lose text.
MAX_NESTING = 100
# How deep inline markup nests: markdown-it's default. Each level multiplies
# the work of an unclosed `[` (link labels are tried at every depth).
INLINE_MAX_NESTING = 20


def _inline_nesting_guard(state: StateInline, silent: bool) -> bool:
    """Past `INLINE_MAX_NESTING`, do what markdown-it does past its own limit."""
    if state.level < INLINE_MAX_NESTING:
        return False
    if silent:
        state.pos = state.posMax
    else:
        state.append_pending(state.src[state.pos])
        state.pos += 1
    return True


def nesting_plugin(md: MarkdownIt) -> None:
    """Let blocks nest `MAX_NESTING` deep, inline markup `INLINE_MAX_NESTING`."""
    md.options["maxNesting"] = MAX_NESTING
    md.inline.ruler.before("text", "nesting_guard", _inline_nesting_guard)


def new_parser(
    *, html: bool = False, syntax: Literal["post", "comment"] = "post"
) -> MarkdownIt:
    """Return a CommonMark parser with the nesting limits and math every caller shares.

    ``html`` keeps raw HTML as tokens (the importer reads figures and directives
    in it); off, raw HTML is escaped and the output is safe to mark safe.
    ``syntax="post"`` reads what posts are written in: tables, strikethrough,
    footnotes, ``\\[…\\]`` and amsmath blocks, CJK-friendly emphasis,
    ``==marks==``, emoji shortcodes, MkDocs syntax and ``%%comments%%``;
    ``"comment"`` only strikethrough and inline and ``$$`` math.
    """
    md = MarkdownIt(
        "commonmark", {"html": html, "linkify": False, "typographer": False}
    )
    md.use(nesting_plugin)
    if syntax == "comment":
        md.enable("strikethrough")
        md.use(math_plugin, blocks=False)
        return md
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(math_plugin)
    md.use(cjk_emphasis_plugin)
    md.use(mark_plugin)
    md.use(emoji_plugin)
    md.use(mkdocs_plugin)
    md.use(comment_plugin)
    return md


def fence_language(info: str, *, colon_filename: bool = False) -> str:
    """Return the first word of a fence info string (``cuda{2}`` gives ``cuda``).

    With ``colon_filename`` a ``:name`` after the word is dropped (``python:main.py``
    gives ``python``), as the importer reads vaults that write fences so; a
    Markdown block keeps the whole word, and shows such a fence as plain text.
    """
    word = re.split(r"[\s{]", info.strip(), maxsplit=1)[0]
    return word.partition(":")[0] if colon_filename else word


def walk(tokens: Sequence[Token]) -> Iterator[Token]:
    """Yield every token, children included, in document order."""
    for token in tokens:
        yield token
        if token.children:
            yield from walk(token.children)


def formulas(
    tokens: Sequence[Token], *, math_fences: bool = True
) -> Iterator[tuple[str, bool]]:
    """Yield ``(tex, display)`` for every formula in ``tokens``, in order.

    With ``math_fences`` a ```` ```math ```` fence is a display formula, as a
    Markdown block renders it; a comment shows one as code.
    """
    for token in walk(tokens):
        if token.type in MATH_TOKENS:
            yield token.content, MATH_TOKENS[token.type]
        elif (
            math_fences
            and token.type == "fence"
            and fence_language(token.info).lower() == "math"
        ):
            yield token.content, True
