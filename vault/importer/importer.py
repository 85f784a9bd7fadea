"""Import a vault of Markdown files into the page tree (docs/markdown-format.md).

Three steps. Read: every file is decoded, its front matter and body parsed
(no database). Write: folders become `SeriesPage`s and files `PostPage`s, parents
first, each file in its own transaction; unchanged files (same `source_hash`)
are skipped. Link: once every page exists, links between files are resolved and
the pages that gained links get their revision updated.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import io
import json
import posixpath
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.images import ImageFile
from django.db import transaction
from django.utils import timezone
from PIL import Image as PILImage
from PIL import UnidentifiedImageError
from wagtail.contrib.redirects.models import Redirect
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import PostPage, SeriesPage
from rendering import check_math

from .assets import AssetFinder, local_part
from .blocks import parse_body, parse_intro
from .frontmatter import FrontMatter, FrontMatterError, split_document
from .indexing import deferred_index_updates
from .inline import LINK_MARKER, LinkRef
from .links import POST, SERIES, LinkIndex, PageKey, alias_paths, old_paths
from .parsed import ImageSlot, ParsedBody
from .report import Issue, Report
from .tree import FolderNode, order_key, scan, slug_for

# Bump when the importer turns the same file into different pages, so that a
# re-import updates pages made by an older version instead of skipping them.
IMPORTER_VERSION = "1"
ORDERINGS = {choice.value for choice in SeriesPage.Ordering}


class FileFailed(Exception):
    """A file cannot be imported; its transaction is rolled back."""

    def __init__(self, issues: Sequence[Issue] | Issue | str) -> None:
        if isinstance(issues, str):
            issues = [Issue(issues)]
        elif isinstance(issues, Issue):
            issues = [issues]
        self.issues = list(issues)
        super().__init__("; ".join(str(issue) for issue in self.issues))


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


class ImageStore:
    """Wagtail images by content, created on first use, never duplicated.

    Images made inside a file's transaction are forgotten (and their files
    deleted from storage) when that transaction is rolled back. A dry run
    writes no files at all.
    """

    def __init__(self, *, dry_run: bool) -> None:
        self.model = get_image_model()
        self.dry_run = dry_run
        self.by_hash: dict[str, int] = {}
        self.created = 0
        self._new: list[tuple[str, str | None]] = []

    def get(self, path: Path, title: str) -> int:
        """Return the pk of the image with ``path``'s content; raise ValueError."""
        data = path.read_bytes()
        digest = hashlib.sha1(data, usedforsecurity=False).hexdigest()  # as Wagtail's
        if digest in self.by_hash:
            return self.by_hash[digest]
        existing = (
            self.model.objects.filter(file_hash=digest)
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
        )
        if existing is not None:
            self.by_hash[digest] = existing
            return existing
        try:
            with PILImage.open(io.BytesIO(data)) as picture:
                width, height = picture.size
                picture.verify()
        except (UnidentifiedImageError, OSError, SyntaxError) as error:
            raise ValueError(f"{path.name} is not an image Pillow can read") from error
        image = self.model(
            title=(title or path.stem)[:255],
            width=width,
            height=height,
            file_size=len(data),
            file_hash=digest,
        )
        if self.dry_run:
            image.file.name = f"original_images/{path.name}"  # never written
        else:
            image.file = ImageFile(io.BytesIO(data), name=path.name)
        image.save()
        self._new.append((digest, None if self.dry_run else image.file.name))
        self.by_hash[digest] = image.pk
        self.created += 1
        return image.pk

    def commit(self) -> None:
        self._new.clear()

    def rollback(self) -> None:
        storage = self.model._meta.get_field("file").storage
        for digest, name in self._new:
            self.by_hash.pop(digest, None)
            self.created -= 1
            if name:
                storage.delete(name)
        self._new.clear()


class Importer:
    """Import one Markdown file or folder tree under a page."""

    def __init__(
        self,
        source: Path,
        *,
        parent: Page,
        dry_run: bool = False,
        draft: bool = False,
        exclude: Sequence[str] = (),
        old_url_prefix: str = "",
        progress: Callable[[int, int, str], None] | None = None,
    ) -> None:
        self.source = source
        self.root_dir = source if source.is_dir() else source.parent
        self.parent = parent.specific
        self.dry_run = dry_run
        self.draft = draft
        self.exclude = list(exclude)
        self.old_url_prefix = old_url_prefix
        self.progress = progress
        self.report = Report(dry_run=dry_run)
        self.finder = AssetFinder(self.root_dir)
        self.images = ImageStore(dry_run=dry_run)
        self.body_block = PostPage._meta.get_field("body").stream_block
        self.sources: dict[PageKey, Source] = {}
        self.pages: dict[PageKey, PageInfo] = {}
        self.saved: list[Saved] = []
        self.index = LinkIndex()
        self._done = 0

    # Driver ----------------------------------------------------------------

    def run(self) -> Report:
        """Import everything and return the report."""
        tree = self._read_tree()
        self._load_existing()
        self._plan()
        outer = transaction.atomic() if self.dry_run else contextlib.nullcontext()
        with outer:
            # Each page is indexed once, when every file is written, rather than
            # at each of its saves; a page rolled back is not indexed at all.
            with deferred_index_updates():
                if tree is None:
                    post = self.sources[(POST, self.source.name)]
                    self._import_post(post, self.parent)
                else:
                    self._import_folder(tree, self.parent)
                self._resolve_links()
            self._write_hashes()
            if tree is not None:
                self._note_orphans()
            if self.dry_run:
                transaction.set_rollback(True)
        self.report.images_created = self.images.created
        return self.report

    def _tick(self, source: Source) -> None:
        self._done += 1
        if self.progress:
            self.progress(self._done, len(self.sources), source.label)

    # Read ------------------------------------------------------------------

    def _read_tree(self) -> FolderNode | None:
        """Read every file; return the folder tree (None for a single file)."""
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
        return tree

    def _read(self, source: Source) -> None:
        """Decode and parse one file (or name a folder without index.md)."""
        self.sources[source.key] = source
        if source.path is None:
            source.title = source.name
            source.data = f"folder:{source.name}".encode()
            return
        try:
            source.data = source.path.read_bytes()
            source.mtime = datetime.date.fromtimestamp(source.path.stat().st_mtime)
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
        parse = parse_intro if source.kind == SERIES else parse_body
        body = parse(
            split.body,
            first_line=split.body_line,
            title=split.front.title or None,
            base_dir=source.path.parent,
            finder=self.finder,
        )
        source.body = body
        source.errors.extend(body.errors)
        source.warnings.extend(body.warnings)
        source.title = (
            split.front.title
            or body.h1
            or (source.name if source.kind == SERIES else Path(source.name).stem)
        )
        if len(source.title) > 255:
            source.warnings.append(Issue("title longer than 255 characters; shortened"))
            source.title = source.title[:255]
        if split.front.cover:
            source.cover = self.finder.find(split.front.cover, source.path.parent)
            if source.cover is None:
                source.warnings.append(
                    Issue(f"missing cover image: {local_part(split.front.cover)}")
                )
            else:
                body.assets.add(source.cover)

    def _load_existing(self) -> None:
        """Find the pages earlier imports made under the parent, by source path."""
        for model, kind in ((PostPage, POST), (SeriesPage, SERIES)):
            pages = (
                model.objects.descendant_of(self.parent)
                .exclude(source_path="")
                .order_by("pk")
                .only("pk", "url_path", "source_path", "source_hash", "depth", "path")
            )
            for page in pages:
                key = (kind, page.source_path)
                if key in self.pages:
                    continue  # a copy made in the admin: the original wins
                self.pages[key] = PageInfo(
                    page.pk, page.get_url() or "", page.source_hash
                )

    def _plan(self) -> None:
        """Give every source its slug, link targets and hash."""
        for key, source in self.sources.items():
            self.index.add(key, source.front.aliases)
        known = set(self.sources)
        for key in self.pages:
            if key not in known:
                self.index.add(key)  # imported before, excluded this time
        by_folder: dict[str, list[Source]] = {}
        for source in self.sources.values():
            by_folder.setdefault(posixpath.dirname(source.rel), []).append(source)
        for siblings in by_folder.values():
            taken: set[str] = set()
            for source in sorted(siblings, key=lambda s: s.sort_key()):
                slug = (
                    slug_for(source.front.slug)
                    if source.front.slug
                    else slug_for(source.name)
                )
                base, n = slug, 2
                while slug in taken:
                    slug, n = f"{base}-{n}", n + 1
                if slug != base:
                    source.warnings.append(
                        Issue(f"slug {base!r} is taken here; using {slug!r}")
                    )
                taken.add(slug)
                source.slug = slug
        for source in self.sources.values():
            source.targets = [self._target(ref, source) for ref in source.body.links]
            source.hash = self._hash(source, [t is not None for t in source.targets])

    def _target(self, ref: LinkRef, source: Source) -> PageKey | None:
        if ref.wiki:
            return self.index.resolve_wiki(ref.url, source.file_rel)
        return self.index.resolve_path(ref.url, source.file_rel)

    def _hash(self, source: Source, found: list[bool]) -> str:
        """Return the hash that says whether ``source`` changed since the last import.

        It covers the file, the files it shows (images, figures), which of its
        links lead somewhere, and the options that change what is written.
        """
        digest = hashlib.sha256()
        root = self.finder.root
        options = {
            "version": IMPORTER_VERSION,
            "draft": self.draft,
            "old_url_prefix": self.old_url_prefix,
            "links": [
                [ref.url, target[0] if target else "", target[1] if target else "", ok]
                for ref, target, ok in zip(
                    source.body.links, source.targets, found, strict=True
                )
            ],
        }
        digest.update(json.dumps(options, sort_keys=True).encode())
        digest.update(hashlib.sha256(source.data).digest())
        for path in sorted(source.body.assets):
            # Relative, so that moving the vault does not change every hash.
            where = path.relative_to(root) if path.is_relative_to(root) else path
            digest.update(str(where).encode())
            try:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"missing")
        return digest.hexdigest()

    # Write -----------------------------------------------------------------

    def _import_folder(self, folder: FolderNode, page: Page) -> None:
        """Import a folder's posts and sub-folders under ``page``, then order them."""
        for rel in folder.posts:
            self._import_post(self.sources[(POST, rel)], page)
        for child in folder.folders:
            series = self._import_series(self.sources[(SERIES, child.rel)], page)
            if series is None:
                self._skip_below(child)
            else:
                self._import_folder(child, series)
        self._apply_order(folder, page)

    def _skip_below(self, folder: FolderNode) -> None:
        """Count every file under a folder that could not be imported as failed."""
        for node in folder.walk():
            for rel in node.posts:
                self._tick(self.sources[(POST, rel)])
                self.report.fail(
                    POST, rel, [Issue(f"its folder {folder.rel}/ was not imported")]
                )
            if node is not folder:
                source = self.sources[(SERIES, node.rel)]
                self._tick(source)
                self.report.fail(
                    SERIES,
                    source.label,
                    [Issue(f"its folder {folder.rel}/ was not imported")],
                )

    def _import_post(self, source: Source, parent: Page) -> None:
        self._tick(source)
        if source.errors:
            self.report.fail(POST, source.label, source.errors)
            self.report.warn(source.warnings, source.label)
            return
        existing = self.pages.get(source.key)
        if existing is not None and existing.source_hash == source.hash:
            self.report.record(POST, "unchanged", source.label)
            return
        self._write(source, lambda: self._save_post(source, parent, existing))

    def _import_series(self, source: Source, parent: Page) -> Page | None:
        self._tick(source)
        existing = self.pages.get(source.key)
        if source.errors:
            self.report.fail(SERIES, source.label, source.errors)
            self.report.warn(source.warnings, source.label)
            return self._folder_only(source, parent, existing)
        if existing is not None and existing.source_hash == source.hash:
            self.report.record(SERIES, "unchanged", source.label)
            return SeriesPage.objects.get(pk=existing.pk)
        saved = self._write(source, lambda: self._save_series(source, parent, existing))
        return SeriesPage.objects.get(pk=saved) if saved else None

    def _folder_only(
        self, source: Source, parent: Page, existing: PageInfo | None
    ) -> Page | None:
        """Return the series of a folder whose index.md failed, so its posts land.

        An existing series is left as it is; a missing one is made from the
        folder's name. Its empty hash makes the next run import index.md again.
        """
        if existing is not None:
            return SeriesPage.objects.get(pk=existing.pk)
        folder = Source(source.key, None, f"{source.rel}/", source.name)
        folder.title, folder.slug = source.name, source.slug
        try:
            with transaction.atomic():
                pk = self._save_series(folder, parent, None)
        except Exception:  # its posts are then reported as not imported
            return None
        return SeriesPage.objects.get(pk=pk)

    def _write(self, source: Source, save: Callable[[], int]) -> int | None:
        """Run ``save`` in a transaction of its own; report what happened."""
        created = source.key not in self.pages
        try:
            with transaction.atomic():
                self._check_math(source)
                pk = save()
        except FileFailed as error:
            self.images.rollback()
            self.report.fail(source.kind, source.label, error.issues)
            self.report.warn(source.warnings, source.label)
            return None
        except Exception as error:  # one bad file must not stop the run
            self.images.rollback()
            self.report.fail(source.kind, source.label, [_internal(error)])
            self.report.warn(source.warnings, source.label)
            return None
        self.images.commit()
        self.report.record(
            source.kind, "created" if created else "updated", source.label
        )
        self.report.warn(source.warnings, source.label)
        return pk

    def _check_math(self, source: Source) -> None:
        """Fail the file on the first pass if KaTeX rejects any formula."""
        errors = []
        for formula in source.body.formulas:
            message = check_math(formula.tex, formula.display)
            if message is not None:
                errors.append(Issue(_katex_message(message), formula.line))
        if errors:
            raise FileFailed(errors)

    def _save_post(
        self, source: Source, parent: Page, existing: PageInfo | None
    ) -> int:
        front = source.front
        image_pks = self._image_pks(source)
        resolved = self._resolve(source, report=False)
        body = self._stream(*_body_raw(source.body, resolved, image_pks))
        if existing is not None:
            page = PostPage.objects.get(pk=existing.pk).get_latest_revision_as_object()
        else:
            page, _ = self._adopt(parent, source, PostPage)
        date = source.date
        updated = front.updated or date
        if updated < date:
            source.warnings.append(
                Issue(f"updated ({updated}) is before date ({date}); using {date}")
            )
            updated = date
        page.title = source.title
        page.slug = source.slug
        page.summary = front.summary
        page.date = date
        page.updated = updated
        if front.comments is not None:
            page.comments = front.comments
        page.cover_id = self._cover(source)
        page.body = body
        page.source_path = source.rel
        page.source_hash = source.hash
        return self._store(page, parent, source, resolved, image_pks, front.tags)

    def _save_series(
        self, source: Source, parent: Page, existing: PageInfo | None
    ) -> int:
        front = source.front
        if existing is not None:
            page = SeriesPage.objects.get(
                pk=existing.pk
            ).get_latest_revision_as_object()
            adopted = False
        else:
            page, adopted = self._adopt(parent, source, SeriesPage)
        if source.path is not None or not adopted:
            page.title = source.title
        page.slug = source.slug
        resolved = self._resolve(source, report=False)
        raw = source.body.html
        if source.path is not None:
            page.intro = _finish(raw, source.body.links, resolved, [])
            if front.ordering in ORDERINGS:
                page.ordering = front.ordering
            elif front.ordering:
                source.warnings.append(
                    Issue(
                        f"ordering {front.ordering!r} is not one of {sorted(ORDERINGS)}"
                    )
                )
            if front.cover:
                page.cover_id = self._cover(source)
        page.source_path = source.rel
        page.source_hash = source.hash
        return self._store(page, parent, source, resolved, [])

    def _adopt(self, parent: Page, source: Source, model: type[Page]):
        """Return (page, adopted): a new page, or the one at this slug if never imported.

        A section or post made in the admin (`/notes/`, or a post restored from an
        export into the same site) is taken over by the file or folder of the same
        slug, with a new revision, rather than failing it.
        """
        sibling = parent.get_children().filter(slug=source.slug).specific().first()
        if sibling is None:
            return model(), False
        if isinstance(sibling, model) and not sibling.source_path:
            return sibling.get_latest_revision_as_object(), True
        raise FileFailed(_slug_taken(sibling, source.slug))

    def _store(
        self,
        page: Page,
        parent: Page,
        source: Source,
        resolved: list[PageInfo | None],
        image_pks: list[int | None],
        tags: list[str] | None = None,
    ) -> int:
        """Add or revise ``page``, publish it, and remember it for the link pass.

        A page whose links wait for pages later in this run is published in the
        link pass instead (a new one is only added here), so it gets one
        revision and is published once.

        The page's source hash stays empty until the run has indexed it
        (`_write_hashes`), so a run cut short, even killed, imports the file
        again rather than skip a page that search does not know.

        A post's ``tags`` are saved with its revision. A new post published
        here gets them from its revision only: saving them when it is added
        too would save each tag, and purge the tag's pages, twice.
        """
        publish = not (self.draft or source.front.draft)
        waiting = any(
            target is not None and page_info is None
            for target, page_info in zip(source.targets, resolved, strict=True)
        )
        new = page.pk is None
        tags_with_revision = new and publish and not waiting
        if tags is not None and not tags_with_revision:
            page.tags.set(tags)
        if new:
            page.live = publish and not waiting
            try:
                parent.add_child(instance=page)
            except ValidationError as error:
                raise FileFailed([Issue(m) for m in _messages(error)]) from error
            if tags is not None and tags_with_revision:
                page.tags.set(tags)
        revision = None
        if not (new and waiting):
            revision = self._revise(page, source, publish and not waiting)
        self._set_hash(source, page.pk, "")
        self._redirects(page, source)
        self.pages[source.key] = PageInfo(page.pk, page.get_url() or "", source.hash)
        self.saved.append(
            Saved(
                source,
                page.pk,
                resolved,
                image_pks,
                publish,
                waiting,
                revision.pk if revision else None,
                "" if waiting else source.hash,
            )
        )
        return page.pk

    def _revise(self, page: Page, source: Source, publish: bool, overwrite=None):
        """Save a revision, publishing it or leaving it a draft; return it."""
        try:
            revision = page.save_revision(overwrite_revision=overwrite)
        except ValidationError as error:
            raise FileFailed([Issue(m) for m in _messages(error)]) from error
        if publish:
            revision.publish()
        elif source.front.draft and page.live:
            page.unpublish()
        return revision

    def _set_hash(self, source: Source, pk: int, value: str) -> None:
        # On the page row itself: a draft revision leaves the row alone.
        self._model(source).objects.filter(pk=pk).update(
            source_path=source.rel, source_hash=value
        )

    def _write_hashes(self) -> None:
        """Give the pages written this run their source hash, now they are indexed."""
        with transaction.atomic():
            for saved in self.saved:
                if saved.hash:
                    self._set_hash(saved.source, saved.pk, saved.hash)

    def _image_pks(self, source: Source) -> list[int | None]:
        pks: list[int | None] = []
        for image in source.body.images:
            try:
                pks.append(self.images.get(image.path, image.alt or image.path.stem))
            except (OSError, ValueError) as error:
                source.warnings.append(
                    Issue(f"image not imported: {error}", image.line)
                )
                pks.append(None)
        return pks

    def _cover(self, source: Source) -> int | None:
        if source.cover is None:
            return None
        try:
            return self.images.get(source.cover, source.title)
        except (OSError, ValueError) as error:
            source.warnings.append(Issue(f"cover not imported: {error}"))
            return None

    def _stream(self, raw: list[dict], lines: list[int]):
        """Return the body as a StreamValue, validated as the admin would."""
        value = self.body_block.to_python(raw)
        # Embeds are checked when shown (fetching oEmbed here would need the network).
        checked = [i for i, block in enumerate(raw) if block["type"] != "embed"]
        try:
            self.body_block.clean(self.body_block.to_python([raw[i] for i in checked]))
        except ValidationError as error:
            raise FileFailed(
                _block_errors(error, [(raw[i]["type"], lines[i]) for i in checked])
            ) from error
        return value

    def _redirects(self, page: Page, source: Source) -> None:
        """Make the page's old URLs (path on the old site, aliases) redirect to it."""
        folder = source.kind == SERIES
        paths = old_paths(source.rel, folder=folder, prefix=self.old_url_prefix)
        paths += alias_paths(
            source.front.aliases, source.rel, folder=folder, prefix=self.old_url_prefix
        )
        if source.front.permalink:
            paths += alias_paths([source.front.permalink], "", folder=True)
        parts = page.get_url_parts()
        own = Redirect.normalise_path(parts[2]) if parts and parts[2] else None
        for old in dict.fromkeys(Redirect.normalise_path(p) for p in paths):
            if old in (own, "/") or len(old) > 255:
                continue
            redirect = Redirect.objects.filter(old_path=old).order_by("pk").first()
            if redirect is None:
                Redirect.objects.create(
                    old_path=old, site=None, redirect_page=page, is_permanent=True
                )
                self.report.redirects_created += 1
            elif (
                redirect.redirect_page_id != page.pk
                or not redirect.is_permanent
                or redirect.redirect_link
            ):
                if redirect.redirect_page_id not in (None, page.pk):
                    source.warnings.append(
                        Issue(
                            f"redirect {old} pointed at another page; now points here"
                        )
                    )
                redirect.redirect_page = page
                redirect.redirect_link = ""
                redirect.is_permanent = True
                redirect.save()

    def _apply_order(self, folder: FolderNode, page: Page) -> None:
        """Move the folder's pages into reading order (the explorer's child order)."""
        sources = [self.sources[(POST, rel)] for rel in folder.posts]
        sources += [self.sources[(SERIES, child.rel)] for child in folder.folders]
        wanted = [
            self.pages[s.key].pk
            for s in sorted(sources, key=lambda s: s.sort_key())
            if s.key in self.pages
        ]
        current = list(
            Page.objects.child_of(page)
            .filter(pk__in=wanted)
            .order_by("path")
            .values_list("pk", flat=True)
        )
        present = set(current)
        wanted = [pk for pk in wanted if pk in present]
        if wanted == current:
            return
        first = next(
            i for i, (a, b) in enumerate(zip(wanted, current, strict=True)) if a != b
        )
        with transaction.atomic():
            for pk in wanted[first:]:
                Page.objects.get(pk=pk).move(page, pos="last-child")

    # Link ------------------------------------------------------------------

    def _resolve(self, source: Source, *, report: bool) -> list[PageInfo | None]:
        """Return the page each link of ``source`` leads to (None: not there yet)."""
        resolved = []
        for ref, target in zip(source.body.links, source.targets, strict=True):
            page = self.pages.get(target) if target else None
            resolved.append(page)
            if report and page is None:
                why = "no such file" if target is None else "that page was not imported"
                source.warnings.append(
                    Issue(f"broken link to {ref.url}: {why}", ref.line)
                )
        return resolved

    def _resolve_links(self) -> None:
        """Give pages written this run their links to pages written after them."""
        for saved in self.saved:
            source = saved.source
            before = len(source.warnings)
            resolved = self._resolve(source, report=True)
            self.report.warn(source.warnings[before:], source.label)
            changed = [p.pk if p else None for p in resolved] != [
                p.pk if p else None for p in saved.resolved
            ]
            if saved.waiting or changed:
                try:
                    with transaction.atomic():
                        self._relink(saved, resolved)
                except Exception as error:  # report it and go on with the others
                    self.report.fail(source.kind, source.label, [_internal(error)])
                    continue
            found = [page is not None for page in resolved]
            expected = [target is not None for target in source.targets]
            # A link that could not be made (its target failed) makes the next
            # run import this file again.
            saved.hash = source.hash if found == expected else self._hash(source, found)

    def _relink(self, saved: Saved, resolved: list[PageInfo | None]) -> None:
        source = saved.source
        page = self._model(source).objects.get(pk=saved.pk)
        page = page.get_latest_revision_as_object()
        if source.kind == POST:
            raw, _ = _body_raw(source.body, resolved, saved.images)
            page.body = self.body_block.to_python(raw)
        else:
            page.intro = _finish(source.body.html, source.body.links, resolved, [])
        latest = page.get_latest_revision()
        # Complete the revision this run saved rather than adding a second one.
        overwrite = latest if latest and latest.pk == saved.revision_pk else None
        self._revise(page, source, saved.publish, overwrite)

    @staticmethod
    def _model(source: Source) -> type[Page]:
        return PostPage if source.kind == POST else SeriesPage

    def _note_orphans(self) -> None:
        """Say which imported pages no longer have a file (they are kept)."""
        gone = sorted(key[1] for key in self.pages if key not in self.sources)
        if gone:
            shown = ", ".join(gone[:10]) + (" …" if len(gone) > 10 else "")
            self.report.notes.append(
                f"{len(gone)} imported pages have no source file any more (kept): {shown}"
            )


def _body_raw(
    body: ParsedBody, resolved: list[PageInfo | None], image_pks: list[int | None]
) -> tuple[list[dict], list[int]]:
    """Return the raw StreamField data of a body, and each block's source line.

    Image blocks whose file could not be imported are left out.
    """
    raw, lines = [], []
    for block in body.blocks:
        if block.type == "image" and image_pks[block.value["image"].index] is None:
            continue
        value = _finish(block.value, body.links, resolved, image_pks)
        raw.append({"type": block.type, "value": value})
        lines.append(block.line)
    return raw, lines


def _finish(
    value: Any,
    links: list[LinkRef],
    resolved: list[PageInfo | None],
    image_pks: list[int | None],
) -> Any:
    """Return ``value`` with link markers and image slots replaced.

    A resolved link becomes a page link (rich text) or a URL (Markdown); an
    unresolved one becomes its text.
    """
    if isinstance(value, str):
        return LINK_MARKER.sub(
            lambda m: _link(links[int(m.group(1))], resolved[int(m.group(1))]), value
        )
    if isinstance(value, list):
        return [_finish(item, links, resolved, image_pks) for item in value]
    if isinstance(value, dict):
        return {k: _finish(v, links, resolved, image_pks) for k, v in value.items()}
    if isinstance(value, ImageSlot):
        return image_pks[value.index]
    return value


def _link(ref: LinkRef, page: PageInfo | None) -> str:
    if ref.markdown:
        return f"[{ref.label_text}]({page.url})" if page else ref.label_text
    if page is None:
        return ref.label_html
    return f'<a linktype="page" id="{page.pk}">{ref.label_html}</a>'


def _internal(error: Exception) -> Issue:
    detail = "".join(traceback.format_exception_only(error)).strip()
    return Issue(f"internal error: {detail}")


def _katex_message(message: str) -> str:
    return message if message.startswith("KaTeX") else f"KaTeX error: {message}"


def _slug_taken(page: Page, slug: str) -> Issue:
    where = page.get_url() or page.url_path
    origin = (
        f" (imported from {page.source_path})"
        if getattr(page, "source_path", "")
        else ""
    )
    return Issue(
        f"slug {slug!r} is already used by {where}{origin}; set `slug:` in the front matter"
    )


def _messages(error: ValidationError) -> Iterable[str]:
    if hasattr(error, "message_dict"):
        for name, messages in error.message_dict.items():
            for message in messages:
                yield f"{name}: {message}"
    else:
        yield from error.messages


def _block_errors(error: ValidationError, blocks: list[tuple[str, int]]) -> list[Issue]:
    """Return one issue per invalid block, at the block's line."""
    block_errors = getattr(error, "block_errors", None)
    if not block_errors:
        return [Issue(f"invalid body: {'; '.join(error.messages)}")]
    issues = []
    for index, child in sorted(block_errors.items()):
        type_, line = blocks[index]
        data = (
            child.as_json_data()
            if hasattr(child, "as_json_data")
            else {"messages": child.messages}
        )
        issues.append(Issue(f"{type_} block: {'; '.join(_flatten(data))}", line))
    return issues


def _flatten(data: Any) -> Iterable[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _flatten(value)
    elif isinstance(data, list):
        for value in data:
            yield from _flatten(value)
