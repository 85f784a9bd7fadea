"""The read pass: every file decoded, its front matter and body parsed.

No database here, and no page is touched: each file becomes a `Source` (its
front matter, its parsed body, what went wrong), and the folder tree is
returned for the write pass. `ReadMixin` is part of `importer.Importer`.
"""

from __future__ import annotations

import datetime
import posixpath
from pathlib import Path

from django.conf import settings

from rendering.mkdocs import strip_attr_lists

from .assets import local_part
from .body import parse_body
from .frontmatter import FrontMatterError, split_document
from .history import file_dates
from .home import HOME_LABEL
from .links import POST, SERIES
from .records import Source
from .report import Issue
from .theme import theme_placeholder
from .tree import INDEX_NAMES, README_NAME, FolderNode, is_excluded, scan


class ReadMixin:
    """The read pass, for `Importer`."""

    def _read_tree(self) -> FolderNode | None:
        """Read every file; return the folder tree (None for a single file)."""
        self.history = file_dates(self.root_dir)
        if not self.source.is_dir():
            self._read(
                Source(
                    (POST, self.source.name),
                    self.source,
                    self.source.name,
                    self.source.name,
                )
            )
            return None
        tree = scan(self.source, self.exclude)
        skipped = sorted(
            path.name
            for path in self.source.iterdir()
            if path.name.lower() in (*INDEX_NAMES, README_NAME)
            and path.is_file()
            and not is_excluded(path.name, self.exclude)
        )
        if self._home() is not None and HOME_LABEL in skipped:
            # The root is the home page: its index.md is the home's intro.
            skipped.remove(HOME_LABEL)
            home = Source(("home", ""), self.source / HOME_LABEL, HOME_LABEL, "")
            self._read(home)
            self.home_source = self.sources.pop(home.key)
        if skipped:
            self.report.notes.append(
                f"Not imported: {', '.join(skipped)} at the vault's root "
                "(the root is the page the vault is imported under)"
            )
        for rel, why in tree.refused:
            self.report.warn(Issue(why), rel)
        for folder in tree.walk():
            if folder.rel:
                index_rel = (
                    f"{folder.rel}/{folder.index.name}"
                    if folder.index
                    else f"{folder.rel}/"
                )
                self._read(
                    Source((SERIES, folder.rel), folder.index, index_rel, folder.name)
                )
            for rel in folder.posts:
                self._read(
                    Source(
                        (POST, rel), self.root_dir / rel, rel, posixpath.basename(rel)
                    )
                )
        self._drop_theme_pages(tree)
        return tree

    def _read(self, source: Source) -> None:
        """Decode and parse one file (or name a folder without index.md)."""
        self.sources[source.key] = source
        if source.path is None:
            source.title = source.name
            source.data = f"folder:{source.name}".encode()
            return
        if not self.finder.inside(source.path):
            target = source.path.resolve()
            source.errors.append(
                Issue(f"file outside the vault not read: symlink to {target}")
            )
            return
        limit = settings.VAULT_MAX_POST_BYTES
        try:
            size = source.path.stat().st_size
            if size > limit:
                source.errors.append(
                    Issue(
                        f"file too large: {size:,} bytes, more than the {limit:,} "
                        "VAULT_MAX_POST_BYTES allows; raise VAULT_MAX_POST_BYTES to "
                        "import it"
                    )
                )
                return
            source.data = source.path.read_bytes()
            source.mtime = datetime.date.fromtimestamp(source.path.stat().st_mtime)
            source.history = self.history.get(source.file_rel)
        except OSError as error:
            source.errors.append(Issue(f"cannot read the file: {error.strerror}"))
            return
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = source.data[: error.start].count(b"\n") + 1
            column = error.start - (source.data.rfind(b"\n", 0, error.start) + 1) + 1
            byte = source.data[error.start]
            source.errors.append(
                Issue(f"not valid UTF-8: byte 0x{byte:02x} at column {column}", line)
            )
            return
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        try:
            split = split_document(text)
        except FrontMatterError as error:
            source.errors.append(error.issue)
            return
        source.front = split.front
        source.warnings.extend(split.warnings)
        if (placeholder := theme_placeholder(split.body)) is not None:
            source.theme = placeholder
            return
        body = parse_body(
            split.body,
            first_line=split.body_line,
            title=split.front.title or None,
            base_dir=source.path.parent,
            finder=self.finder,
            breaks=self.breaks.value,
            max_formulas=settings.VAULT_MAX_POST_FORMULAS,
            max_nesting=settings.VAULT_MAX_NESTING,
        )
        source.body = body
        source.errors.extend(body.errors)
        source.warnings.extend(body.warnings)
        source.title = (
            strip_attr_lists(split.front.title or "")
            or body.h1
            or (source.name if source.kind == SERIES else Path(source.name).stem)
        )
        if len(source.title) > 255:
            source.warnings.append(Issue("title longer than 255 characters; shortened"))
            source.title = source.title[:255]
        if split.front.cover:
            located = self.finder.locate(split.front.cover, source.path.parent)
            source.cover = located.path
            if located.warning:
                source.warnings.append(Issue(located.warning))
            elif source.cover is None:
                source.warnings.append(
                    Issue(f"missing cover image: {local_part(split.front.cover)}")
                )
            if source.cover is not None:
                body.assets.add(source.cover)
