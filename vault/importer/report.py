"""What an import did: counts, failures and warnings, each with file and line."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

POST = "post"
SERIES = "series"
OUTCOMES = ("created", "updated", "unchanged", "failed")


@dataclass(frozen=True)
class Issue:
    """One problem found in a source file; ``line`` is 1-based, None for the file."""

    message: str
    line: int | None = None
    path: str = ""

    def at(self, path: str) -> Issue:
        """Return this issue located in ``path`` (unless it already has a path)."""
        return self if self.path else replace(self, path=path)

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

    def format(self) -> str:
        """Return the summary table, then every failure and warning."""
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
        if self.failures:
            lines.append("")
            lines.append("Failures:")
            lines.extend(f"  {issue}" for issue in self.failures)
        if self.warnings:
            lines.append("")
            lines.append("Warnings:")
            lines.extend(f"  {issue}" for issue in self.warnings)
        if self.notes:
            lines.append("")
            lines.extend(self.notes)
        return "\n".join(lines)
