"""What the importer keeps of each file and page during a run."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from .frontmatter import FrontMatter
from .links import PageKey
from .parsed import ParsedBody
from .report import Issue
from .tree import order_key


@dataclass
class Source:
    """One post (a Markdown file) or series (a folder) of the vault, read."""

    key: PageKey
    path: Path | None  # the Markdown file; None for a folder with no index.md
    file_rel: str  # the file's path in the vault, links are relative to it
    name: str  # file or folder name, for slugs and order
    front: FrontMatter = field(default_factory=FrontMatter)
    title: str = ""
    body: ParsedBody = field(default_factory=ParsedBody)
    data: bytes = b""
    mtime: datetime.date | None = None
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    cover: Path | None = None
    # Filled in once every file is read.
    slug: str = ""
    targets: list[PageKey | None] = field(default_factory=list)
    hash: str = ""

    @property
    def kind(self) -> str:
        return self.key[0]

    @property
    def rel(self) -> str:
        return self.key[1]

    @property
    def label(self) -> str:
        """Return the path reports name: the file, or the folder with a slash."""
        return self.file_rel if self.path else f"{self.rel}/"

    @property
    def date(self) -> datetime.date:
        return self.front.date or self.mtime or timezone.localdate()

    def sort_key(self) -> tuple:
        return order_key(self.name, self.front.weight, self.front.date or self.mtime)


@dataclass
class PageInfo:
    """An imported page: what links and re-imports need of it."""

    pk: int
    url: str
    source_hash: str = ""
    slug: str = ""


@dataclass
class Saved:
    """A page written in this run, kept until its links are resolved."""

    source: Source
    pk: int
    resolved: list[PageInfo | None]
    images: list[int | None]
    publish: bool
    waiting: bool  # saved unpublished, to be completed by the link pass
    revision_pk: int | None
    hash: str  # the source hash the page is given once it is indexed
