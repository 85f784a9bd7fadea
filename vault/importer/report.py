"""What an import did: counts, failures and warnings, each with file and line."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

POST = "post"
SERIES = "series"
OUTCOMES = ("created", "updated", "unchanged", "failed")

# The variable parts of a message, each replaced by "…" to find its kind.
_VARIABLE = re.compile(
    r"""
    '[^']*' | "[^"]*" | “[^”]*” | 《[^》]*》        # quoted text
    | \([^()]*\)                                   # (details)
    | \b[a-z][a-z0-9+.-]*://\S+                    # URLs
    | \d{4}-\d\d-\d\d(?:[T\x20]\d\d:\d\d(?::\d\d)?)?   # dates
    | (?<!\S):[\w+-]+:(?!\S)                        # :shortcode:
    | !?\[\[[^\]]*\]\] | \[\^[^\]]*\] | \[![^\]]*\]  # ![[embed]], [^note], [!TYPE]
    | \{[^}]*\} | <[^>]*>                          # {1,3-5}, <div>
    | (?<!\S)[^\s;,()]*?(?:[/\\][^\s;,()]*?|\.[A-Za-z0-9]{1,5})(?=:?(?:[\s;,)]|$))
                                                    # paths, file names
    | \\[A-Za-z]+                                   # TeX commands
    | (?<![\w-])(?:0x[0-9a-f]+|\d+(?:\.\d+)?)(?!\w)    # numbers
    """,
    re.VERBOSE | re.ASCII | re.IGNORECASE,
)
_RUNS = re.compile(r"…(?:[\s/:.…]*…)+")


def message_kind(message: str) -> str:
    """Return ``message`` with its variable parts replaced by "…".

    Warnings that differ only in the file, text, number or URL they name have
    the same kind. Anything after a second ": " is a detail (a library's
    message), left out.
    """
    kind = _RUNS.sub("…", _VARIABLE.sub("…", message))
    head, sep, rest = kind.partition(": ")
    if sep:
        kind = head + sep + rest.partition(": ")[0]
    return kind.strip()


@dataclass(frozen=True)
class Issue:
    """One problem found in a source file; ``line`` is 1-based, None for the file."""

    message: str
    line: int | None = None
    path: str = ""
    # What the summary groups it under; by default the message without its
    # variable parts (`message_kind`).
    kind: str = ""

    def at(self, path: str) -> Issue:
        """Return this issue located in ``path`` (unless it already has a path)."""
        return self if self.path else replace(self, path=path)

    @property
    def group(self) -> str:
        """Return the kind the summary counts this issue under."""
        return self.kind or message_kind(self.message)

    def __str__(self) -> str:
        where = self.path or "?"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


@dataclass
class Report:
    """The outcome of one import run."""

    dry_run: bool = False
    outcomes: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    images_created: int = 0
    redirects_created: int = 0
    files: list[tuple[str, str]] = field(default_factory=list)
    # The result ids of the rendering queued for the task workers.
    queued: list[str] = field(default_factory=list)

    def record(self, kind: str, outcome: str, path: str) -> None:
        """Count one page or file (``kind`` is POST or SERIES)."""
        self.outcomes[(kind, outcome)] += 1
        self.files.append((outcome, path))

    def warn(self, issues: list[Issue] | Issue, path: str) -> None:
        """Add warnings found in ``path``."""
        items = [issues] if isinstance(issues, Issue) else issues
        self.warnings.extend(issue.at(path) for issue in items)

    def fail(self, kind: str, path: str, issues: list[Issue]) -> None:
        """Count ``path`` as failed, for the reasons given."""
        self.record(kind, "failed", path)
        self.failures.extend(issue.at(path) for issue in issues)

    def count(self, outcome: str, kind: str | None = None) -> int:
        """Return how many pages had ``outcome`` (of one kind, or of both)."""
        kinds = (kind,) if kind else (POST, SERIES)
        return sum(self.outcomes[(k, outcome)] for k in kinds)

    @property
    def failed(self) -> int:
        return self.count("failed")

    def kinds(self) -> list[tuple[int, str]]:
        """Return (count, kind) of the warnings, the most frequent first."""
        counts = Counter(issue.group for issue in self.warnings)
        return sorted(((n, kind) for kind, n in counts.items()), key=_by_count)

    def format(self) -> str:
        """Return the summary table and the warnings' kinds, then every issue.

        Failures and warnings are listed by file, in the order the files were
        read, each as ``path:line: message``.
        """
        lines = []
        if self.dry_run:
            lines.append("Dry run: nothing was written.")
        lines.append(f"{'':<10}{'posts':>7}{'series':>8}")
        for outcome in OUTCOMES:
            lines.append(
                f"{outcome:<10}{self.count(outcome, POST):>7}"
                f"{self.count(outcome, SERIES):>8}"
            )
        lines.append(
            f"images created: {self.images_created}; "
            f"redirects created: {self.redirects_created}; "
            f"warnings: {len(self.warnings)}"
        )
        if self.warnings:
            lines.append("")
            lines.append("Warnings by kind:")
            width = len(str(self.kinds()[0][0]))
            lines.extend(f"  {n:>{width}}  {kind}" for n, kind in self.kinds())
        if self.failures:
            lines.append("")
            lines.append("Failures:")
            lines.extend(_by_file(self.failures))
        if self.warnings:
            lines.append("")
            lines.append("Warnings, by file:")
            lines.extend(_by_file(self.warnings))
        if self.notes:
            lines.append("")
            lines.extend(self.notes)
        return "\n".join(lines)


def _by_count(item: tuple[int, str]) -> tuple[int, str]:
    return (-item[0], item[1])


def _by_file(issues: list[Issue]) -> list[str]:
    """Return ``issues`` as lines, each file's together and in line order."""
    files: dict[str, list[Issue]] = {}
    for issue in issues:
        files.setdefault(issue.path, []).append(issue)
    lines = []
    for found in files.values():
        found.sort(key=lambda issue: -1 if issue.line is None else issue.line)
        lines.extend(f"  {issue}" for issue in found)
    return lines
