"""Emphasis next to Chinese, Japanese and Korean text, as Obsidian reads it.

CommonMark decides whether ``**`` opens or closes emphasis from the characters
on either side, and fails on ``**强领导者（Strong Leader）**驱动``: the closing run
follows punctuation and precedes a letter. The CommonMark CJK-friendly amendment
(the markdown-cjk-friendly proposal) counts CJK punctuation as neither
punctuation nor whitespace there; text with no CJK parses as before. This is that
rule for ``*``, ``_`` and ``~~``.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline.state_inline import Scanned, StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType


@lru_cache(maxsize=4096)
def is_cjk(char: str) -> bool:
    """Return True for a wide CJK character (letters and punctuation), not an emoji."""
    if unicodedata.east_asian_width(char) in "WFH":
        # emoji's tables take 8 MB: loaded by the first process that renders
        # Markdown, never by a web process serving rendered pages.
        import emoji

        return not emoji.is_emoji(char)
    return unicodedata.name(char, "").startswith("HANGUL")


def _is_variation_selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0e"


def _is_ideographic_selector(char: str) -> bool:
    return "\U000e0100" <= char <= "\U000e01ef"


def _is_punct(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)


class _CjkStateInline(StateInline):
    def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:  # noqa: N802
        """Return what CommonMark's scan does, with the CJK-friendly flanking rules."""
        src, maximum = self.src, self.posMax
        marker = src[start]
        pos = start
        while pos < maximum and src[pos] == marker:
            pos += 1
        last = src[start - 1] if start > 0 else " "
        # A standard variation selector belongs to the character before it.
        before = src[start - 2] if start > 1 else " "
        last_base = before if _is_variation_selector(last) else last
        following = src[pos] if pos < maximum else " "

        last_space = isWhiteSpace(ord(last))
        next_space = isWhiteSpace(ord(following))
        last_punct = _is_punct(last_base)
        next_punct = _is_punct(following)
        last_cjk = is_cjk(last_base) or _is_ideographic_selector(last)
        next_cjk = is_cjk(following)
        last_plain_punct = last_punct and not is_cjk(last_base)
        next_plain_punct = next_punct and not next_cjk

        left_flanking = not next_space and (
            not next_plain_punct or last_space or last_plain_punct or last_cjk
        )
        right_flanking = not last_space and (
            not last_plain_punct or next_space or next_plain_punct or next_cjk
        )
        can_open = left_flanking and (canSplitWord or not right_flanking or last_punct)
        can_close = right_flanking and (canSplitWord or not left_flanking or next_punct)
        return Scanned(can_open, can_close, pos - start)


class _CjkParserInline(ParserInline):
    def parse(
        self, src: str, md: MarkdownIt, env: EnvType, tokens: list[Token]
    ) -> list[Token]:
        """Parse inlines as ParserInline does, with CJK-friendly delimiter runs."""
        state = _CjkStateInline(src, md, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens


def cjk_emphasis_plugin(md: MarkdownIt) -> None:
    """Make ``md`` read emphasis next to CJK text the CJK-friendly way."""
    parser = _CjkParserInline()
    # Keep the rules and terminators the parser and other plugins set up.
    vars(parser).update(vars(md.inline))
    md.inline = parser
