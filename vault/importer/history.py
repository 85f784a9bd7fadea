"""The dates of a vault's files from git: first commit and last commit.

One `git log` for the whole vault, parsed once, following renames. Nothing
here fails an import: without git, outside a repository, or on any git
error, there are simply no dates.
"""

from __future__ import annotations

import datetime
import shutil
import subprocess  # noqa: S404 (runs git with fixed arguments, no shell)
from dataclasses import dataclass
from pathlib import Path

# Git's own options that keep a repository's settings from running anything or
# changing the output: no pager, no external diff or text conversion.
_GIT = (
    "-c",
    "core.quotepath=false",
    "-c",
    "core.fsmonitor=false",
    "--no-pager",
)
_LOG = (
    "log",
    "--relative",
    "-M",
    "--name-status",
    "-z",
    "--no-ext-diff",
    "--no-textconv",
    "--format=%x01%aI",
    "--",
    ".",
)
TIMEOUT = 120  # seconds


@dataclass(frozen=True)
class FileDates:
    """When a file was first and last committed (the author's dates)."""

    created: datetime.date
    updated: datetime.date


def file_dates(root: Path) -> dict[str, FileDates]:
    """Return the dates of the files under ``root`` by their path relative to it.

    Empty if ``root`` is not in a git repository or git is not installed. A file
    renamed (or moved) keeps the dates of its history under its older names.
    """
    output = _git(root, *_LOG)
    return parse_log(output) if output else {}


def is_shallow(root: Path) -> bool:
    """Return True if ``root`` is in a shallow clone, whose oldest dates are wrong."""
    return _git(root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def _git(root: Path, *args: str) -> bytes:
    """Return what git prints for ``args`` run in ``root``; empty on any failure."""
    git = shutil.which("git")
    if git is None:
        return b""
    try:
        done = subprocess.run(  # noqa: S603
            [git, *_GIT, "-C", str(root), *args],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return b""
    return done.stdout if done.returncode == 0 else b""


def parse_log(output: bytes) -> dict[str, FileDates]:
    """Return file dates from ``git log --name-status -z --format=%x01%aI``.

    Commits come newest first. A path is followed back through renames
    (``R``): the older name's commits count for the file's current name; an
    ``A`` ends the file's history (an older file of that name was another one).
    """
    fields = output.decode("utf-8", errors="surrogateescape").split("\0")
    # The path each name in the history has now; None once its history ended.
    current: dict[str, str | None] = {}
    first: dict[str, datetime.date] = {}
    last: dict[str, datetime.date] = {}
    day: datetime.date | None = None
    i = 0
    while i < len(fields):
        field = fields[i].lstrip("\n")
        i += 1
        if field.startswith("\x01"):
            try:
                day = datetime.datetime.fromisoformat(field[1:]).date()
            except ValueError:
                day = None
            continue
        if not field or day is None:
            continue
        status = field[0]
        if status in "RC":
            old, new = fields[i], fields[i + 1] if i + 1 < len(fields) else ""
            i += 2
        else:
            old = new = fields[i] if i < len(fields) else ""
            i += 1
        path = current.get(new, new)
        if path is None:
            continue  # an older file that had this name
        first[path] = day if path not in first else min(first[path], day)
        last[path] = day if path not in last else max(last[path], day)
        if status == "R":
            current[old] = path
            current[new] = None
        elif status in "AC":
            current[new] = None
    return {path: FileDates(first[path], last[path]) for path in first}
