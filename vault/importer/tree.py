"""The folder tree of a vault: which folders are series, which files are posts.

Pure file-system walking and ordering rules; no database here.
"""

from __future__ import annotations

import datetime
import fnmatch
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.utils.text import slugify

INDEX_NAMES = ("index.md", "_index.md")
# A folder's intro when it has no index.md (GitHub and MkDocs read it so).
README_NAME = "readme.md"
# Folders that hold a vault's attachments, never pages.
RESOURCE_FOLDERS = frozenset({"images", "image", "img", "assets", "attachments"})


@dataclass
class FolderNode:
    """A folder of the vault: a series, or the root (``rel == ""``)."""

    rel: str
    path: Path
    index: Path | None = None
    posts: list[str] = field(default_factory=list)  # source paths of its posts
    folders: list[FolderNode] = field(default_factory=list)
    # Root only: (path, why) of each entry left out because it leads outside.
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return PurePosixPath(self.rel).name

    def walk(self):
        """Yield this folder and every folder below it, parents first."""
        yield self
        for folder in self.folders:
            yield from folder.walk()


def is_excluded(rel: str, patterns: Sequence[str]) -> bool:
    """Return True if the relative path ``rel`` matches one of the glob ``patterns``.

    ``*`` crosses folders (``drafts/*`` excludes everything under drafts/), and a
    pattern naming a folder excludes the folder.
    """
    return any(
        fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern + "/*")
        for pattern in patterns
    )


def scan(root: Path, exclude: Sequence[str] = ()) -> FolderNode:
    """Return the folder tree under ``root`` holding Markdown files.

    Hidden entries (``.obsidian``, ``.git``), attachment folders and folders with
    no Markdown file in them are skipped. A folder's ``README.md`` is its intro
    when it has no ``index.md``, else one of its posts. The root's ``index.md``
    and ``README.md`` (the vault's own readme) are ignored.
    Symlinked folders are not followed; a symlink leading out of ``root`` is
    left out and listed in the root's ``refused``.
    """
    refused: list[tuple[str, str]] = []
    node = _scan(root, "", exclude, root.resolve(), refused) or FolderNode("", root)
    node.index = None
    node.posts = [rel for rel in node.posts if rel.lower() != README_NAME]
    node.refused = refused
    return node


def _scan(
    path: Path,
    rel: str,
    exclude: Sequence[str],
    real_root: Path,
    refused: list[tuple[str, str]],
) -> FolderNode | None:
    node = FolderNode(rel, path)
    try:
        entries = sorted(os.scandir(path), key=lambda e: natural_key(e.name))
    except OSError:
        return None
    readme = None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        child_rel = f"{rel}/{entry.name}" if rel else entry.name
        if is_excluded(child_rel, exclude):
            continue
        if entry.is_symlink() and not _leads_inside(entry, real_root):
            if entry.is_dir() or entry.name.lower().endswith(".md"):
                target = os.path.realpath(entry.path)
                refused.append(
                    (child_rel, f"file outside the vault not read: symlink to {target}")
                )
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name.lower() in RESOURCE_FOLDERS:
                continue
            child = _scan(Path(entry.path), child_rel, exclude, real_root, refused)
            if child is not None:
                node.folders.append(child)
        elif entry.is_file() and entry.name.lower().endswith(".md"):
            if entry.name.lower() in INDEX_NAMES:
                node.index = node.index or Path(entry.path)
            else:
                node.posts.append(child_rel)
                if entry.name.lower() == README_NAME:
                    readme = (child_rel, Path(entry.path))
    if node.index is None and readme is not None and rel:
        node.posts.remove(readme[0])
        node.index = readme[1]
    if not node.posts and not node.folders and node.index is None:
        return None
    return node


def _leads_inside(entry: os.DirEntry, real_root: Path) -> bool:
    try:
        return Path(entry.path).resolve().is_relative_to(real_root)
    except (OSError, RuntimeError):  # a symlink loop
        return False


_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """Return a sort key that orders ``2-x`` before ``10-x``."""
    parts = _DIGITS.split(name.casefold())
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts))


def order_key(name: str, weight: float | None, date: datetime.date | None) -> tuple:
    """Return the position key of a post or folder inside its series.

    A ``weight`` comes first; then names that start with a number, in natural
    order (a numbered series: ``2-x`` before ``10-x``); then the rest by date,
    oldest first, names breaking ties.
    """
    stem = name[:-3] if name.lower().endswith(".md") else name
    if weight is not None:
        return (0, weight, natural_key(stem))
    if stem[:1].isdigit():
        return (1, 0, natural_key(stem))
    return (2, (date or datetime.date.max).toordinal(), natural_key(stem))


# C#, F#: a sharp after a Latin letter is part of a name.
_SHARP = re.compile(r"(?<=[A-Za-z])#")


def slug_for(name: str) -> str:
    """Return the URL slug for a file or folder name: Unicode kept, lowercased.

    Signs that carry meaning are spelt out, so that ``C``, ``C++`` and ``C#``
    get different slugs: ``++`` → ``pp`` (``cpp``), ``#`` after a letter →
    ``sharp`` (``csharp``), another ``+`` → ``-plus-`` (``b-plus-tree``).
    """
    stem = name[:-3] if name.lower().endswith(".md") else name
    # Full-width signs (＋, ＃) first become their ASCII forms.
    stem = unicodedata.normalize("NFKC", stem)
    stem = _SHARP.sub("sharp", stem.replace("++", "pp")).replace("+", "-plus-")
    return slugify(stem, allow_unicode=True)[:255].strip("-") or "page"
