"""Render inline math (``$…$`` and ``\\(…\\)``) inside plain text and rich-text HTML.

Dollar rules follow Pandoc's ``tex_math_dollars``: an opening ``$`` must be
followed by a non-space character; the closing ``$`` is the first unescaped ``$``
after it, and it must be preceded by a non-space character and not be followed by
a digit, otherwise the opening ``$`` is literal text. So ``It costs $5 or $10``
stays text. ``$$`` is never inline math, and ``\\$`` is a literal dollar sign.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .cache import batch, memoize
from .math import check_math, prefetch_math, render_math_safe

_SPACE = " \t\n\r\f\v\u00a0"
_unescape = html.unescape


class InlineMath(NamedTuple):
    """One inline formula found in text: ``text[start:end]`` is its source."""

    start: int
    end: int
    tex: str


class _Scanner:
    """Find formula closers in one text, each position walked at most once.

    A scan is a walk whose next step depends only on the position, so every
    position it passes leads to the same answer: remember it. Then the scans
    started by many openers (``\\(`` ten thousand times) take linear time, not
    quadratic. ``steps`` counts the positions walked, for tests.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.steps = 0
        self._closers: dict[str, dict[int, int]] = {}
        self._groups: dict[int, int] = {}

    def find(self, pos: int, closer: str) -> int:
        """Return the index of ``closer`` ending the formula opened before ``pos``.

        Backslash escapes the next character (so ``\\$`` and ``\\)`` do not
        close), and a blank line ends the search as it ends a paragraph. Return
        -1 if there is no closer.
        """
        text, n = self.text, len(self.text)
        known = self._closers.setdefault(closer, {})
        walked: list[int] = []
        while True:
            if pos in known:
                found = known[pos]
                break
            if pos >= n:
                found = -1
                break
            self.steps += 1
            walked.append(pos)
            if text.startswith(closer, pos):
                found = pos
                break
            char = text[pos]
            if char == "\\":
                # \text{…} may hold $ signs of its own (Pandoc allows it).
                if text.startswith("text{", pos + 1):
                    pos = self._group_end(pos + 6)
                else:
                    pos += 2
                continue
            if char == "\n" and _blank_line_follows(text, pos + 1):
                found = -1
                break
            pos += 1
        for walked_pos in walked:
            known[walked_pos] = found
        return found

    def _group_end(self, pos: int) -> int:
        """Return the index just past the ``}`` closing the group ``pos`` is in.

        Backslash escapes are honoured; an unbalanced group ends at the end of text.
        """
        text, n = self.text, len(self.text)
        known = self._groups
        levels: list[list[int]] = [[]]  # the positions walked at each depth
        while True:
            if pos in known:
                end = known[pos]
            elif pos >= n:
                end = n
            else:
                self.steps += 1
                levels[-1].append(pos)
                char = text[pos]
                if char == "\\":
                    pos += 2
                    continue
                if char == "{":
                    levels.append([])
                    pos += 1
                    continue
                if char != "}":
                    pos += 1
                    continue
                end = pos + 1
            for walked_pos in levels.pop():
                known[walked_pos] = end
            if not levels:
                return end
            pos = end  # continue in the enclosing group (at n if this one is open)


def _blank_line_follows(text: str, pos: int) -> bool:
    """Return True if ``text[pos:]`` starts with a line holding only spaces."""
    while pos < len(text) and text[pos] in " \t\r":
        pos += 1
    return pos >= len(text) or text[pos] == "\n"


def _tokens(text: str) -> Iterator[tuple[str, int, int, str]]:
    """Yield ``("text", start, end, literal)`` and ``("math", start, end, tex)``.

    Pieces cover ``text`` in order; literal pieces have ``\\$`` turned into ``$``.
    """
    n = len(text)
    scanner = _Scanner(text)
    literal: list[str] = []  # the pending literal run, already unescaped
    run_start = 0  # where the pending literal run starts in text
    copied = 0  # text[run_start:copied] is already in literal
    i = 0
    while i < n:
        char = text[i]
        math_end = -1
        if char == "\\" and i + 1 < n:
            if text[i + 1] == "$":
                literal.append(text[copied:i] + "$")
                i = copied = i + 2
                continue
            if text[i + 1] == "(":
                close = scanner.find(i + 2, "\\)")
                if close != -1 and text[i + 2 : close].strip():
                    math_end, tex = close + 2, text[i + 2 : close]
            if math_end == -1:
                # Any other escape, a doubled backslash included, is literal;
                # skip both characters so an escaped backslash cannot open math.
                i += 2
                continue
        elif char == "$":
            if i + 1 < n and text[i + 1] == "$":
                # A run of $$ (display math elsewhere, or money) is literal here.
                while i < n and text[i] == "$":
                    i += 1
                continue
            if i + 1 < n and text[i + 1] not in _SPACE:
                close = scanner.find(i + 1, "$")
                if (
                    close != -1
                    and text[close - 1] not in _SPACE
                    and not (close + 1 < n and text[close + 1].isdigit())
                ):
                    math_end, tex = close + 1, text[i + 1 : close]
        if math_end == -1:
            i += 1
            continue
        literal.append(text[copied:i])
        if pending := "".join(literal):
            yield ("text", run_start, i, pending)
        yield ("math", i, math_end, tex)
        literal = []
        i = copied = run_start = math_end
    literal.append(text[copied:])
    if pending := "".join(literal):
        yield ("text", run_start, n, pending)


def find_inline_math(text: str) -> list[InlineMath]:
    """Return every inline formula in ``text``, in order."""
    return [
        InlineMath(start, end, value)
        for kind, start, end, value in _tokens(text)
        if kind == "math"
    ]


def inline_pieces(text: str) -> list[tuple[str, str]]:
    """Return ``text`` as ``("text", literal)`` and ``("math", tex)`` pieces, in order.

    Literal pieces have ``\\$`` turned into ``$``; the pieces cover the text.
    """
    return [(kind, value) for kind, _start, _end, value in _tokens(text)]


def _render_pieces(
    pieces: list[tuple[bool, str]],
    *,
    unescape: Callable[[str], str] | None,
    math_output: str = "htmlAndMathml",
) -> str:
    """Return ``pieces`` with formulas rendered and literal pieces escaped.

    Each piece is ``(scan, text)``; math is looked for where ``scan`` is True and
    other pieces are kept as they are. With ``unescape`` set, the text is already
    HTML: literal pieces are kept byte-for-byte (bar ``\\$``) and only formula
    sources are unescaped. The cached renders of every formula are read in one
    batch, not one round trip each.
    """
    parts: list[tuple[str, str]] = []  # ("math", tex) or ("html", markup)
    for scan, text in pieces:
        if not scan:
            parts.append(("html", text))
            continue
        for kind, _start, _end, value in _tokens(text):
            if kind == "math":
                parts.append(("math", unescape(value) if unescape else value))
            else:
                parts.append(("html", value if unescape else html.escape(value)))
    with batch():
        prefetch_math(
            ((value, False) for kind, value in parts if kind == "math"), math_output
        )
        return "".join(
            render_math_safe(value, output=math_output) if kind == "math" else value
            for kind, value in parts
        )


@memoize("inline-text")
def render_inline_text(text: str, math_output: str = "htmlAndMathml") -> str:
    """Return plain ``text`` as escaped HTML with its inline math rendered.

    ``math_output`` is KaTeX's output option (``"mathml"`` for feeds).
    """
    return _render_pieces([(True, text)], unescape=None, math_output=math_output)


# Elements whose text is never scanned for math. Script/style/textarea content is
# copied verbatim up to the closing tag (it is not HTML); the rest nest.
_RAW_TEXT = ("script", "style", "textarea")
_SKIP = frozenset({"code", "pre", "kbd", "samp", "var", "math", "svg", *_RAW_TEXT})

_MARKUP = re.compile(
    r"""
    <!--.*?-->                                  # comment
    | <!\[CDATA\[.*?\]\]>                       # CDATA
    | <[!?][^>]*>                               # doctype, processing instruction
    | </?([A-Za-z][^\s/>]*)                     # tag name (group 1)
      (?:[^>"']|"[^"]*"|'[^']*')*>              # attributes, quoted values may hold >
    """,
    re.DOTALL | re.VERBOSE,
)


def _html_pieces(markup: str) -> Iterator[tuple[bool, str]]:
    """Yield ``(scan, piece)``: ``scan`` is True for text nodes math may be in."""
    skip_depth: dict[str, int] = {}
    pos = 0
    while pos < len(markup):
        match = _MARKUP.search(markup, pos)
        if match is None:
            yield (not skip_depth, markup[pos:])
            return
        if match.start() > pos:
            yield (not skip_depth, markup[pos : match.start()])
        tag = match.group(0)
        yield (False, tag)
        pos = match.end()
        name = (match.group(1) or "").lower()
        if name not in _SKIP or tag.endswith("/>"):
            continue
        if tag.startswith("</"):
            if skip_depth.get(name):
                skip_depth[name] -= 1
                if not skip_depth[name]:
                    del skip_depth[name]
        elif name in _RAW_TEXT:
            closing = re.compile(rf"</{name}\b", re.IGNORECASE)
            end = closing.search(markup, pos)
            end_pos = len(markup) if end is None else end.start()
            if end_pos > pos:
                yield (False, markup[pos:end_pos])
            pos = end_pos
        else:
            skip_depth[name] = skip_depth.get(name, 0) + 1


@memoize("inline-html")
def render_inline_html(markup: str, math_output: str = "htmlAndMathml") -> str:
    """Return rich-text ``markup`` with inline math in its text nodes rendered.

    Tags, attribute values and the text of code, pre, script and style elements
    are left untouched; text without math comes back byte-for-byte.
    ``math_output`` is KaTeX's output option (``"mathml"`` for feeds).
    """
    return _render_pieces(
        list(_html_pieces(markup)), unescape=_unescape, math_output=math_output
    )


def inline_formulas(text_or_html: str, html: bool = False) -> list[str]:
    """Return the TeX of every inline formula in plain text or rich text, in order."""
    if not html:
        return [m.tex for m in find_inline_math(text_or_html)]
    return [
        _unescape(m.tex)
        for scan, piece in _html_pieces(text_or_html)
        if scan
        for m in find_inline_math(piece)
    ]


def inline_math_errors(text_or_html: str, html: bool = False) -> list[str]:
    """Return KaTeX's message for every invalid inline formula, in order."""
    return [
        message
        for tex in inline_formulas(text_or_html, html)
        if (message := check_math(tex)) is not None
    ]
