"""Formulas as Markdown converters leave them: undo their escapes where KaTeX agrees.

Converters and hand-escaping put Markdown escapes inside math (`X^\\*`,
`e\\_{ij}`, `\\\\mathbf`, a `\\+` at a line start), which KaTeX rejects. A
formula KaTeX rejects is tried again with the escapes undone, and the repaired
form is kept only if KaTeX accepts it; otherwise the formula is kept as written
and reported, and the page shows it as KaTeX shows errors.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from rendering import check_math, is_bound_error

# A backslash before punctuation that means nothing in math but is a Markdown
# escape (`\\*`, `\\_`, `\\+`…). Backslashes before it come in pairs (`\\\\*` is a
# line break, then `*`). Punctuation TeX gives a meaning to (`\\{`, `\\,`, `\\|`,
# `\\#`, `\\$`, `\\%`, `\\&`, `\\!`, `\\;`, `\\:`, `\\>`) is left alone.
_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\([*_+\-<=`'\"().\[\]^~?@/])")
# `\\[2pt]` after a row, whose first backslash a Markdown renderer ate.
_ROW_SPACING = re.compile(
    r"(?<!\\)((?:\\\\)*)\\(\[\s*-?(?:\d+\.?\d*|\.\d+)\s*(?:pt|em|ex|mm|cm|mu|bp)\s*\])"
)
# `\\\\mathbf`: a command whose backslash was escaped.
_DOUBLED_COMMAND = re.compile(r"(?<!\\)\\\\(?=[A-Za-z])")


def _undo_escapes(tex: str, *, underscores: bool) -> str:
    tex = _ROW_SPACING.sub(lambda m: f"{m[1]}\\\\{m[2]}", tex)
    return _ESCAPE.sub(
        lambda m: m[0] if m[2] == "_" and not underscores else m[1] + m[2], tex
    )


def _candidates(tex: str) -> Iterator[str]:
    """Yield repaired forms of ``tex``, the most thorough first."""
    for underscores in (True, False):
        undone = _undo_escapes(tex, underscores=underscores)
        yield undone
        yield _DOUBLED_COMMAND.sub(r"\\", undone)
    yield _DOUBLED_COMMAND.sub(r"\\", tex)


class FormulaFixer:
    """Check each formula of a post, repairing it where its escapes broke it.

    Past ``limit`` formulas nothing is checked (each check is a KaTeX render);
    `over_limit` says so. Nor is anything once ``seconds`` have gone on checks
    (None: no bound); `out_of_time` says so. ``repaired`` maps each repaired
    source to its repair and whether it is display math, for the Markdown
    blocks that keep formulas in their source.
    """

    def __init__(self, limit: int | None = None, seconds: float | None = None) -> None:
        self.limit = limit
        self.count = 0
        self.repaired: dict[str, tuple[str, bool]] = {}
        self.seconds = seconds
        self.spent = 0.0

    @property
    def over_limit(self) -> bool:
        return self.limit is not None and self.count > self.limit

    @property
    def out_of_time(self) -> bool:
        return self.seconds is not None and self.spent >= self.seconds

    def fix(self, tex: str, display: bool) -> tuple[str, str | None]:
        """Return the formula to keep and KaTeX's message if it is still rejected."""
        self.count += 1
        if self.over_limit or self.out_of_time or not tex.strip():
            return tex, None
        start = time.monotonic()
        try:
            return self._fix(tex, display)
        finally:
            self.spent += time.monotonic() - start

    def _fix(self, tex: str, display: bool) -> tuple[str, str | None]:
        message = check_math(tex, display)
        if message is None:
            return tex, None
        if is_bound_error(message):
            # Too large or too slow: undoing escapes would not make it fit.
            return tex, message
        tried = {tex}
        for candidate in _candidates(tex):
            if candidate in tried:
                continue
            tried.add(candidate)
            if check_math(candidate, display) is None:
                self.repaired[tex] = (candidate, display)
                return candidate, None
        return tex, message

    def fix_source(self, source: str) -> str:
        """Return Markdown ``source`` with the formulas repaired so far replaced.

        Inline formulas are replaced where they are written between their
        delimiters, so prose is never touched; display formulas line by line,
        since a list item indents them (a repair never adds or removes a line).
        """
        for tex, (fixed, display) in self.repaired.items():
            for before, after in _DELIMITERS:
                source = source.replace(before + tex + after, before + fixed + after)
            if display:
                for old, new in zip(tex.split("\n"), fixed.split("\n"), strict=True):
                    if old != new and old.strip():
                        source = source.replace(old, new)
        return source


_DELIMITERS = (("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
