"""Readers' comments: a small Markdown with inline math, nothing a reader can abuse.

CommonMark with raw HTML escaped, emphasis, code, lists, quotes, links and
``$…$`` / ``$$…$$`` math typeset by KaTeX. No headings, images or tables: a
comment is a few paragraphs under an article. Links carry
``rel="nofollow ugc"``, so a comment lends no ranking to what it links.

A comment's formulas together get the output one formula may have
(``math.MAX_OUTPUT_BYTES``): past it, and for any formula past its own bound,
the source is shown, so a few hundred characters never make a page of
megabytes for every reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from . import math as math_module
from .cache import batch, memoize
from .math import math_error_html, prefetch_math, render_math_safe
from .parser import formulas, new_parser

_MATH_TOKENS = ("math_inline", "math_inline_double", "math_block")


def _render_math(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Return one formula typeset by KaTeX (its source, escaped, if it is bad).

    ``env["math_bytes"]`` is what the comment's formulas may still take.
    """
    token = tokens[idx]
    display = token.type != "math_inline"
    left = env["math_bytes"]
    rendered = render_math_safe(token.content, display)
    size = len(rendered.encode())
    if size > left:
        limit = env["max_math_bytes"]
        message = f"Formula too large: the comment's formulas exceed {limit:,} bytes"
        rendered = math_error_html(token.content, message, display)
        size = len(rendered.encode())
    env["math_bytes"] = max(0, left - size)
    if not display:
        return rendered
    return f'<span class="math-display">{rendered}</span>'


def _render_link_open(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    """Open a link that search engines do not follow."""
    tokens[idx].attrSet("rel", "nofollow ugc")
    return self.renderToken(tokens, idx, options, env)


def _build() -> MarkdownIt:
    """Return the comment parser: CommonMark with raw HTML off, math on."""
    md = new_parser(syntax="comment")
    md.disable(["heading", "lheading", "image", "html_block", "html_inline"])
    for name in _MATH_TOKENS:
        md.add_render_rule(name, _render_math)
    md.add_render_rule("link_open", _render_link_open)
    return md


_md = _build()


def render_comment(text: str) -> str:
    """Return a reader's comment rendered as safe HTML (its input escaped)."""
    return _render_comment(text, math_module.MAX_OUTPUT_BYTES)


@memoize("comment")
def _render_comment(text: str, max_math_bytes: int) -> str:
    tokens = _md.parse(text)
    env = {"math_bytes": max_math_bytes, "max_math_bytes": max_math_bytes}
    with batch():
        prefetch_math(formulas(tokens, math_fences=False), "htmlAndMathml")
        return _md.renderer.render(tokens, _md.options, env)
