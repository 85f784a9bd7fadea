"""Math: display formulas as math blocks, and every formula checked with its line.

`collect_formulas` runs over the tokens before any block is made: a formula
KaTeX rejects is repaired in its token where it can be (`FormulaFixer`), so
the blocks get the repaired text, and each formula is listed in
`ParsedBody.formulas` with the file line it is on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from rendering import find_inline_math, is_bound_error

from ..parsed import Formula
from ..tokens import fence_language
from .context import BodyContext

MATH_BLOCKS = frozenset({"math_block", "amsmath"})
# A footnote reference markdown-it left as text: its label has no definition.
# A label holds no bracket, so a run of `[^` costs linear time.
_UNDEFINED_NOTE = re.compile(r"\[\^([^\[\]\s]+)\](?!:)")


def math_block(ctx: BodyContext, node: list[Token]) -> None:
    """Import ``$$…$$`` or an ``amsmath`` environment as a math block."""
    display_math(ctx, node[0].content, ctx.label, ctx.line(node[0]))


def math_fence(ctx: BodyContext, token: Token) -> None:
    """Import a ``math`` fence as a math block."""
    display_math(ctx, token.content, ctx.label, ctx.line(token))


def display_math(ctx: BodyContext, tex: str, label: str, line: int) -> None:
    tex = tex.strip()
    if not tex:
        return
    numbered = ctx.numbered and not label
    value = {"tex": tex, "label": label[:32], "numbered": numbered}
    ctx.emit("math", value, line)


def collect_formulas(
    ctx: BodyContext, tokens: Sequence[Token], first_line: int
) -> None:
    """List every formula in ``tokens`` with the file line it is on.

    A formula KaTeX rejects is repaired in its token where undoing Markdown
    escapes makes it valid; one that stays invalid is kept and reported.
    """
    for token in tokens:
        line = token.map[0] + first_line if token.map else first_line
        is_math_fence = (
            token.type == "fence" and fence_language(token.info).lower() == "math"
        )
        if token.type in MATH_BLOCKS or is_math_fence:
            _formula(ctx, token, True, line)
        elif token.type == "inline":
            for child in token.children or ():
                if child.type == "math_inline":
                    _formula(ctx, child, False, line)
                elif child.type == "math_inline_double":
                    _formula(ctx, child, True, line)
                elif child.type == "shortcode_icon":
                    ctx.warn(f"icon shortcode dropped: {child.markup}", line)
                elif child.type == "text" and "[^" in child.content:
                    for label in _UNDEFINED_NOTE.findall(child.content):
                        ctx.warn(
                            f"footnote [^{label}] has no definition; kept as text",
                            line,
                        )
                line += child.content.count("\n")
                if child.type in ("softbreak", "hardbreak"):
                    line += 1


def _formula(ctx: BodyContext, token: Token, display: bool, line: int) -> None:
    """Check (and repair) one formula's token, and list it."""
    token.content, error = ctx.fixer.fix(token.content, display)
    ctx.result.formulas.append(Formula(token.content, display, line, error))
    if error is None:
        return
    message = f"formula kept with an error: {' '.join(error.split())}"
    if is_bound_error(error):
        # KaTeX's own messages show where the error is; these name no place.
        message += f": {_excerpt(token.content)}"
    ctx.warn(message, line)


def caption_formulas(ctx: BodyContext, caption: str, line: int) -> str:
    """Check a caption's formulas; return it with those repaired (`FormulaFixer`)."""
    parts, pos = [], 0
    for formula in find_inline_math(caption):
        tex, error = ctx.fixer.fix(formula.tex, False)
        ctx.result.formulas.append(Formula(tex, False, line))
        if error is not None:
            ctx.warn(f"formula kept with an error: {' '.join(error.split())}", line)
        source = caption[formula.start : formula.end]
        parts += [caption[pos : formula.start], source.replace(formula.tex, tex)]
        pos = formula.end
    return "".join(parts) + caption[pos:]


def _excerpt(tex: str, length: int = 60) -> str:
    """Return the start of a formula on one line, to name it in a warning."""
    text = " ".join(tex.split())
    return text if len(text) <= length else text[: length - 1] + "…"
