"""What the importer keeps of each file and page during a run."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from .frontmatter import FrontMatter
from .history import FileDates
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
    history: FileDates | None = None  # its first and last commit, if in git
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    cover: Path | None = None
    # The template placeholder the file is made of alone: the old theme's page.
    theme: str = ""
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
        """Return the front matter's date, else the first commit's, else the file's.

        A date not from the front matter is never after its ``updated``.
        """
        return self._known_date() or timezone.localdate()

    @property
    def updated(self) -> datetime.date:
        """Return the front matter's updated, else the last commit's, else the date."""
        if self.front.updated:
            return self.front.updated
        if self.history:
            return max(self.history.updated, self.date)
        return self.date

    def sort_key(self) -> tuple:
        return order_key(self.name, self.front.weight, self._known_date())

    def _known_date(self) -> datetime.date | None:
        if self.front.date:
            return self.front.date
        own = self.history.created if self.history else self.mtime
        if own and self.front.updated:
            return min(own, self.front.updated)
        return own or self.front.updated


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
