"""Estimate how long a post takes to read, from its stored body, without rendering.

Chinese is read character by character (about 400 字 a minute), English word by
word (about 220 words a minute); code is skimmed and display math glanced at.
Counting works on the raw stream data, so neither KaTeX nor Pygments runs and no
image is fetched; what each block holds comes from its declared text
(`blog.text.body_pieces`).
"""

import math
import re
from collections.abc import Iterable

from blog.blocks import Text
from blog.text import body_pieces

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

    def add(self, kind: Text, text: str) -> None:
        """Count a piece of a body, as its block declares it (`blog.blocks.Text`)."""
        if kind in (Text.PROSE, Text.RICH_TEXT):
            self.add_text(text)
        elif kind is Text.CODE:
            self.add_code(text)
        elif kind is Text.TEX:
            self.formulas += 1
        elif kind is Text.MARKDOWN:
            self.add_markdown(text)
        # Labels (alt text, an equation's number) are not read through.

    def minutes(self) -> int:
        """Return whole minutes, rounded up, at least one."""
        total = (
            self.cjk / CJK_PER_MINUTE
            + self.words / WORDS_PER_MINUTE
            + self.code_lines / CODE_LINES_PER_MINUTE
            + self.formulas * SECONDS_PER_FORMULA / 60
        )
        return max(1, math.ceil(total))


def reading_minutes(raw_blocks: Iterable[dict]) -> int:
    """Return the minutes a reader needs for a body, from its raw stream data."""
    tally = Tally()
    for piece in body_pieces(raw_blocks):
        tally.add(piece.kind, piece.text)
    return tally.minutes()
