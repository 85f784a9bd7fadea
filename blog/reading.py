"""Estimate how long a post takes to read, from its stored body, without rendering.

Chinese is read character by character (about 400 字 a minute), English word by
word (about 220 words a minute); code is skimmed and display math glanced at.
Counting works on the raw stream data, so neither KaTeX nor Pygments runs and no
image is fetched.
"""

import math
import re
from collections.abc import Iterable, Iterator

CJK_PER_MINUTE = 400
WORDS_PER_MINUTE = 220
CODE_LINES_PER_MINUTE = 30
SECONDS_PER_FORMULA = 5

# Han ideographs (with extension A and compatibility forms), kana and hangul.
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’._-][A-Za-z0-9]+)*")
_TAG = re.compile(r"<[^>]*>")
_ENTITY = re.compile(r"&[#\w]+;")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)[^$\n]*?(?<=\S)\$|\\\(.*?\\\)")
_FENCE = re.compile(r"^(```+|~~~+)[^\n]*\n(.*?)^\1[ \t]*$", re.DOTALL | re.MULTILINE)

# Stream fields that hold no prose: choices, ids, sizes, source markup.
_NOT_PROSE = {
    "language",
    "level",
    "kind",
    "image",
    "alt",
    "height",
    "html",
    "highlight_lines",
    "line_numbers",
    "tex",
    "label",
    "first_row_is_table_header",
    "first_col_is_header",
    "table_header_choice",
    "cell",
    "mergedCells",
}


class Tally:
    """Running counts of what a reader reads."""

    def __init__(self) -> None:
        self.cjk = 0
        self.words = 0
        self.code_lines = 0
        self.formulas = 0

    def add_text(self, text: str) -> None:
        """Count prose: CJK characters one by one, other words whole."""
        text = _ENTITY.sub(" ", _TAG.sub(" ", text))
        self.formulas += len(_DISPLAY_MATH.findall(text))
        text = _DISPLAY_MATH.sub(" ", text)
        text = _INLINE_MATH.sub(" ", text)
        self.cjk += len(_CJK.findall(text))
        self.words += len(_WORD.findall(_CJK.sub(" ", text)))

    def add_code(self, code: str) -> None:
        self.code_lines += sum(1 for line in code.splitlines() if line.strip())

    def add_markdown(self, source: str) -> None:
        def code(match: re.Match) -> str:
            self.add_code(match.group(2))
            return " "

        self.add_text(_FENCE.sub(code, source))

    def minutes(self) -> int:
        """Return whole minutes, rounded up, at least one."""
        total = (
            self.cjk / CJK_PER_MINUTE
            + self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + self.formulas * SECONDS_PER_FORMULA / 60
        )
        return max(1, math.ceil(total))


def _strings(value) -> Iterator[str]:
    """Yield the prose strings of a block's raw value, skipping non-prose fields."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_PROSE:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def reading_minutes(raw_blocks: Iterable[dict]) -> int:
    """Return the minutes a reader needs for a body, from its raw stream data."""
    tally = Tally()
    for block in raw_blocks:
        kind, value = block.get("type"), block.get("value")
        if kind == "code":
            tally.add_code((value or {}).get("code") or "")
            tally.add_text((value or {}).get("filename") or "")
        elif kind == "math":
            tally.formulas += 1
        elif kind == "markdown":
            tally.add_markdown(value or "")
        elif kind == "embed":
            continue  # a URL
        else:
            for text in _strings(value):
                tally.add_text(text)
    return tally.minutes()
