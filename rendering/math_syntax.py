"""The math syntax every Markdown parser of the site reads, as a markdown-it plugin.

Dollar math comes from mdit-py-plugins; the rules here add ``\\(…\\)`` and
``\\[…\\]``, and keep amsmath environments from costing quadratic time.
"""

from __future__ import annotations

import bisect
import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.amsmath import RE_OPEN as AMSMATH_OPEN
from mdit_py_plugins.amsmath import amsmath_block, amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin


def _scan_closer(state: StateInline, pos: int, closer: str) -> int:
    """Return where ``closer`` starts in the inline source, skipping escapes, or -1.

    The walk's next step depends only on the position, so each position's answer
    is remembered on ``state``: every opener of a paragraph together walks the
    source once (``\\[`` repeated ten thousand times stays linear).
    """
    src, end = state.src, state.posMax
    # A link's label is parsed on the same state with a shorter posMax.
    memos = state.__dict__.setdefault("math_closers", {})
    memo = memos.setdefault((closer, end), {})
    walked = []
    while True:
        if pos in memo:
            found = memo[pos]
            break
        if pos >= end - 1:
            found = -1
            break
        walked.append(pos)
        if src.startswith(closer, pos):
            found = pos
            break
        pos += 2 if src[pos] == "\\" else 1
    for walked_pos in walked:
        memo[walked_pos] = found
    return found


def _bracket_math_inline(state: StateInline, silent: bool) -> bool:
    """Parse ``\\(…\\)`` (inline) and ``\\[…\\]`` inside a paragraph (display)."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "([":
        return False
    closer = "\\)" if src[pos + 1] == "(" else "\\]"
    close = _scan_closer(state, pos + 2, closer)
    if close == -1 or not src[pos + 2 : close].strip():
        return False
    if not silent:
        kind = "math_inline" if closer == "\\)" else "math_inline_double"
        token = state.push(kind, "math", 0)
        token.content = src[pos + 2 : close]
        token.markup = src[pos : pos + 2]
    state.pos = close + 2
    return True


def _display_end(state: StateBlock, line: int, end_line: int) -> int:
    """Return the first line from ``line`` on that ends with ``\\]``, or -1.

    -1 when a blank line or ``end_line`` comes first (TeX display math holds
    no blank line). Each line's answer is remembered on ``state`` for its
    container, so many openers without a closer cost linear time.
    """
    context = (state.level, state.parentType, state.blkIndent, end_line)
    memo = state.__dict__.setdefault("display_ends", {}).setdefault(context, {})
    walked = []
    while True:
        if line in memo:
            found = memo[line]
            break
        if line >= end_line:
            found = -1
            break
        walked.append(line)
        text = state.src[state.bMarks[line] : state.eMarks[line]].rstrip()
        if not text.strip():
            found = -1
            break
        if text.endswith("\\]"):
            found = line
            break
        line += 1
    for walked_line in walked:
        memo[walked_line] = found
    return found


def _bracket_math_block(
    state: StateBlock, start_line: int, end_line: int, silent: bool
) -> bool:
    """Parse a ``\\[…\\]`` display formula starting a block (one line or more)."""
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    first = state.src[begin : state.eMarks[start_line]].rstrip()
    if not first.startswith("\\["):
        return False
    body = first[2:]
    line = start_line
    if body.endswith("\\]"):
        content = body[:-2]
    elif "\\]" in body:
        return False  # \[x\] followed by text: leave it to the inline rule
    else:
        line = _display_end(state, start_line + 1, end_line)
        if line == -1:
            return False
        parts = [body] + [
            state.src[state.bMarks[k] : state.eMarks[k]].rstrip()
            for k in range(start_line + 1, line + 1)
        ]
        parts[-1] = parts[-1][:-2]
        content = "\n".join(parts)
    if not content.strip():
        return False
    if not silent:
        token = state.push("math_block", "math", 0)
        token.block = True
        token.content = content
        token.markup = "\\["
        token.map = [start_line, line + 1]
    state.line = line + 1
    return True


_AMSMATH_OPEN = re.compile(AMSMATH_OPEN)


def _amsmath_if_closed(
    state: StateBlock, start_line: int, end_line: int, silent: bool
) -> bool:
    """Run the amsmath rule only when its ``\\end{…}`` ends a later line.

    The rule looks for the end line by line to the end of the document, for
    every opener: many openers without an end would cost quadratic time.
    """
    begin = state.bMarks[start_line] + state.tShift[start_line]
    opening = _AMSMATH_OPEN.match(state.src, begin, state.eMarks[start_line])
    if opening is None:
        return False
    closing = f"\\end{{{opening.group(1)}{opening.group(2)}}}"
    ends = state.__dict__.setdefault("amsmath_ends", {})
    if closing not in ends:
        pattern = re.compile(re.escape(closing) + r"\s*?$", re.MULTILINE)
        ends[closing] = [m.start() for m in pattern.finditer(state.src)]
    positions = ends[closing]
    last = state.eMarks[min(end_line, len(state.eMarks)) - 1]
    at = bisect.bisect_right(positions, state.eMarks[start_line])
    if at == len(positions) or positions[at] > last:
        return False
    return amsmath_block(state, start_line, end_line, silent)


def math_plugin(md: MarkdownIt, *, blocks: bool = True) -> None:
    """Teach ``md`` the math syntax this site reads, for every parser to share.

    ``$…$`` and ``\\(…\\)`` inline (``$5 or $10`` stays text), ``$$…$$`` display,
    and with ``blocks`` also ``\\[…\\]`` and amsmath environments on their own lines.
    """
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.inline.ruler.before("escape", "math_bracket_inline", _bracket_math_inline)
    if blocks:
        md.use(amsmath_plugin)
        md.block.ruler.at(
            "amsmath",
            _amsmath_if_closed,
            {"alt": ["paragraph", "reference", "blockquote", "list", "footnote_def"]},
        )
        md.block.ruler.before(
            "fence",
            "math_bracket_block",
            _bracket_math_block,
            {"alt": ["paragraph", "reference", "blockquote", "list"]},
        )
