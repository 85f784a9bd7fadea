"""Stable URL-fragment ids for headings."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

FALLBACK_ANCHOR = "section"
# The longest heading a heading block holds, and the longest anchor made from one.
HEADING_MAX_LENGTH = 1000
ANCHOR_MAX_LENGTH = 80

_DASHES = re.compile(r"-{2,}")


def slugify_anchor(text: str) -> str:
    """Return a URL-fragment id for heading ``text``.

    Keep letters (CJK included), digits and combining marks, lowercased; turn
    whitespace, ``_`` and ``-`` into single dashes; drop everything else (``$``,
    backslashes, punctuation, symbols). ``"2.1 Shared Memory 与 Bank Conflict"``
    becomes ``"21-shared-memory-与-bank-conflict"``. An id is at most
    ANCHOR_MAX_LENGTH characters (cut at a dash when one is near the end).
    """
    chars = []
    for char in unicodedata.normalize("NFKC", text).lower():
        if char.isspace() or char in "_-":
            chars.append("-")
        elif unicodedata.category(char)[0] in "LNM":
            chars.append(char)
    slug = _DASHES.sub("-", "".join(chars)).strip("-")
    if len(slug) > ANCHOR_MAX_LENGTH:
        # Cut at a word boundary when one is near, so the id stays readable.
        cut = slug[: ANCHOR_MAX_LENGTH + 1]
        boundary = cut.rfind("-")
        slug = cut[:boundary] if boundary > ANCHOR_MAX_LENGTH // 2 else cut[:-1]
    return slug or FALLBACK_ANCHOR


def unique_anchors(texts: Iterable[str]) -> list[str]:
    """Return one distinct id per heading text, in order.

    Repeats get ``-2``, ``-3``…; a suffixed id never takes the plain slug of another
    heading, so adding a duplicate heading does not move other headings' anchors.
    """
    slugs = [slugify_anchor(text) for text in texts]
    taken = set(slugs)
    seen: set[str] = set()
    anchors = []
    for slug in slugs:
        anchor = slug
        if slug in seen:
            number = 2
            while (anchor := f"{slug}-{number}") in taken:
                number += 1
            taken.add(anchor)
        seen.add(slug)
        anchors.append(anchor)
    return anchors
