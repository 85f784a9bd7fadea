"""Code: a fence (its language, title and highlighted lines) or an indented block.

A fence in ``math`` or ``mermaid`` is not code: `parser.FENCE_HANDLERS` sends
it to `formulas` or `diagrams`.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from rendering import (
    LANGUAGE_ALIASES,
    language_choices,
    normalise_language,
    parse_line_spec,
)

from ..tokens import fence_language
from .context import BodyContext

LANGUAGE_NAMES = frozenset(alias for alias, _ in language_choices())
_TEXT_NAMES = frozenset(
    {"text"} | {name for name, alias in LANGUAGE_ALIASES.items() if alias == "text"}
)
_FENCE_TITLE = re.compile(
    r"""\b(?:title|filename|file)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))"""
)
_FENCE_LINES = re.compile(r"\{([\d,\s-]+)\}")
_FENCE_HL = re.compile(r"""\bhl_lines\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_FENCE_NOLINENOS = re.compile(
    r"\bnolinenos\b|\b(?:linenos|showLineNumbers|numberLines)\s*=\s*(?:false|0)\b",
    re.I,
)


def code_fence(ctx: BodyContext, token: Token) -> None:
    info = token.info.strip()
    line = ctx.line(token)
    written = fence_language(info)
    language = normalise_language(written)
    key = written.strip().lower().lstrip(".")
    if language not in LANGUAGE_NAMES or (language == "text" and key):
        if key and key not in _TEXT_NAMES:
            ctx.warn(f"unknown code language {written!r}; imported as text", line)
        language = "text"
    title = _first_group(_FENCE_TITLE.search(info))
    spec = ""
    if match := _FENCE_LINES.search(info):
        spec = match.group(1)
    elif match := _FENCE_HL.search(info):
        spec = ",".join(_first_group(match).split())
    line_numbers = _FENCE_NOLINENOS.search(info) is None
    emit_code(ctx, token.content, language, title, spec, line_numbers, line)


def code_block(ctx: BodyContext, node: list[Token]) -> None:
    """Import an indented code block: plain text, numbered."""
    emit_code(ctx, node[0].content, "text", "", "", True, ctx.line(node[0]))


def emit_code(
    ctx: BodyContext,
    source: str,
    language: str,
    title: str,
    spec: str,
    numbers: bool,
    line: int,
) -> None:
    code = source[:-1] if source.endswith("\n") else source
    if not code.strip():
        return
    spec = ",".join(part.strip() for part in spec.split(",") if part.strip())
    if spec:
        count = code.count("\n") + 1
        try:
            wanted = parse_line_spec(spec)
        except ValueError as error:
            ctx.warn(f"highlighted lines {{{spec}}} ignored: {error}", line)
            spec = ""
        else:
            if any(n > count for n in wanted):
                ctx.warn(
                    f"highlighted lines {{{spec}}} ignored: the code has {count} lines",
                    line,
                )
                spec = ""
    ctx.emit(
        "code",
        {
            "language": language,
            "filename": title[:255],
            "code": code,
            "highlight_lines": spec,
            "line_numbers": numbers,
        },
        line,
    )


def _first_group(match: re.Match | None) -> str:
    if match is None:
        return ""
    return next((g for g in match.groups() if g is not None), "")
