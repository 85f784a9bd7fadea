"""Import a vault of Markdown files into the page tree (docs/markdown-format.md).

Three steps. Read: every file is decoded, its front matter and body parsed
(no database). Write: folders become `SeriesPage`s and files `PostPage`s, parents
first, each file in its own transaction; unchanged files (same `source_hash`)
are skipped. Link: once every page exists, links between files are resolved and
the pages that gained links get their revision updated. Saving one page is in
`saving`.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path

from django.conf import settings
from django.db import transaction
from wagtail.models import Page

from background.queue import is_queued
from blog import warming, writing
from blog.models import PostPage, SeriesPage
from pagecache.cache import purge_all_at_end
from rendering.mkdocs import strip_attr_lists

from .assets import AssetFinder, local_part
from .body import parse_body
from .dialect import Choice, line_breaks, site_name
from .documents import DocumentStore
from .errors import FileFailed, internal_error
from .fetch import RemoteImages
from .fill import body_raw
from .frontmatter import FrontMatterError, split_document
from .history import file_dates, is_shallow
from .home import HOME_LABEL, HomeMixin
from .images import ImageStore
from .indexing import deferred_index_updates
from .inline import LinkRef
from .links import POST, SERIES, LinkIndex, PageKey
from .places import PlacesMixin
from .records import PageInfo, Saved, Source
from .report import Issue, Report
from .saving import SaveMixin
from .theme import ThemeMixin, theme_placeholder
from .tree import INDEX_NAMES, README_NAME, FolderNode, is_excluded, scan

# Bump when the importer turns the same file into different pages, so that a
# re-import updates pages made by an older version instead of skipping them.
IMPORTER_VERSION = "11"
# An import changing more pages than this purges the whole page cache once.
PURGE_ALL_ABOVE = 20


class Importer(SaveMixin, PlacesMixin, HomeMixin, ThemeMixin):
    """Import one Markdown file or folder tree under a page.

    With ``keep_existing`` only what is missing is added: a page made from the
    same file before, or already at its slug, is left as it is (its children
    are still imported), and only the pages added are put in reading order,
    after the ones already there. `load_demo` imports the demo this way.
    """

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
        keep_existing: bool = False,
        breaks: bool | None = None,
        fetch_images: bool = False,
    ) -> None:
        self.source = source
        self.root_dir = source if source.is_dir() else source.parent
        self.parent = parent.specific
        self.dry_run = dry_run
        self.draft = draft
        self.exclude = list(exclude)
        self.old_url_prefix = old_url_prefix
        self.progress = progress
        self.keep_existing = keep_existing
        self.report = Report(dry_run=dry_run)
        # None: as the vault's own site showed it (see `dialect.line_breaks`).
        self.breaks = (
            line_breaks(self.root_dir)
            if breaks is None
            else Choice(breaks, "--breaks" if breaks else "--no-breaks")
        )
        self.finder = AssetFinder(self.root_dir)
        self.images = ImageStore(dry_run=dry_run)
        self.documents = DocumentStore(dry_run=dry_run)
        # Remote images are downloaded into the library only when asked.
        self.remote = RemoteImages() if fetch_images else None
        self.body_block = PostPage._meta.get_field("body").stream_block
        self.sources: dict[PageKey, Source] = {}
        self.pages: dict[PageKey, PageInfo] = {}
        self.saved: list[Saved] = []
        self.index = LinkIndex()
        self.history = {}
        self._done = 0

    # Driver ----------------------------------------------------------------

    def run(self) -> Report:
        """Import everything and return the report."""
        tree = self._read_tree()
        dated = sum(
            1
            for source in self.sources.values()
            if source.kind == POST and source.history and not source.front.date
        )
        if dated:
            self.report.notes.append(
                f"{dated} posts without a date in their front matter are dated "
                "from git history (first and last commit)"
            )
            if is_shallow(self.root_dir):
                self.report.notes.append(
                    "the git clone is shallow: files older than its first commit "
                    "are dated by it; run `git fetch --unshallow` and import again"
                )
        self._load_existing()
        self._plan()
        if self.remote is not None:
            self.remote.prefetch(self._remote_images_to_save())
        outer = transaction.atomic() if self.dry_run else contextlib.nullcontext()
        with warming.collected() as touched, outer, self._purges():
            # Each page is indexed once, when every file is written, rather than
            # at each of its saves; a page rolled back is not indexed at all.
            with deferred_index_updates():
                if tree is None:
                    post = self.sources[(POST, self.source.name)]
                    self._import_post(post, self.parent)
                else:
                    self._import_folder(tree, self.parent)
                if self.progress:  # what the last seconds are spent on
                    self.progress(self._done, len(self.sources), "links, search index")
                self._resolve_links()
                if tree is not None:
                    self._import_home()
                    if named := site_name(self.root_dir):
                        self._name_site(*named)
                    self._redirect_theme_pages()
            self._write_hashes()
            if tree is not None:
                self._note_orphans()
            if self.dry_run:
                transaction.set_rollback(True)
        if not self.dry_run:
            self._warm(touched)
        self.report.images_created = self.images.created
        self.report.notes.append(
            f"Line breaks: {'on' if self.breaks.value else 'off'} "
            f"({self.breaks.reason}); a single newline in a paragraph "
            + ("is a line break." if self.breaks.value else "joins the lines.")
        )
        return self.report

    def _warm(self, touched: warming.Noted) -> None:
        """Queue the rendering of the pages and images written, for the workers."""
        # The images' renditions were queued as each image was stored.
        self.report.queued = touched.queued + writing.enqueue_checks(touched.checks)
        if not touched.pages and not touched.images:
            return
        self.report.queued += warming.enqueue(touched.pages)
        pages, images = len(touched.pages), len(touched.images)
        if is_queued():
            self.report.notes.append(
                f"{pages} pages and {images} images queued for rendering "
                "(math, code, feed entries, image sizes) on the task workers; "
                "until they are done readers see them as soon as they are "
                "rendered (`--wait` follows the work)"
            )
        else:
            self.report.notes.append(
                f"{pages} pages and {images} images rendered ahead of readers "
                "(math, code, feed entries, image sizes)"
            )

    def _remote_images_to_save(self) -> list[str]:
        """Return the URLs of the remote images of the files that will be saved."""
        urls = []
        for key, source in self.sources.items():
            existing = self.pages.get(key)
            if existing is not None and existing.source_hash == source.hash:
                continue  # unchanged: not saved again
            urls.extend(image.url for image in source.body.images if image.url)
        return urls

    def _purges(self) -> contextlib.AbstractContextManager:
        """Return the block the page cache is purged in for this run.

        A large import shows on most pages (home, listings, tags, the
        archive): the whole cache is purged once, at the end, rather than
        what each page shows worked out and purged page by page.
        """
        changed = sum(
            1
            for key, source in self.sources.items()
            if key not in self.pages or self.pages[key].source_hash != source.hash
        )
        if changed > PURGE_ALL_ABOVE:
            return purge_all_at_end()
        return contextlib.nullcontext()

    def _tick(self, source: Source) -> None:
        self._done += 1
        if self.progress:
            self.progress(self._done, len(self.sources), source.label)

    # Read ------------------------------------------------------------------

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

    def _load_existing(self) -> None:
        """Find the pages earlier imports made under the parent, by source path."""
        for model, kind in ((PostPage, POST), (SeriesPage, SERIES)):
            pages = (
                model.objects.descendant_of(self.parent)
                .exclude(source_path="")
                .order_by("pk")
                .only(
                    "pk",
                    "url_path",
                    "slug",
                    "source_path",
                    "source_hash",
                    "depth",
                    "path",
                )
            )
            for page in pages:
                key = (kind, page.source_path)
                if key in self.pages:
                    continue  # a copy made in the admin: the original wins
                self.pages[key] = PageInfo(
                    page.pk, page.get_url() or "", page.source_hash, page.slug
                )

    def _plan(self) -> None:
        """Give every source its slug, link targets and hash."""
        for key, source in self.sources.items():
            self.index.add(key, source.front.aliases)
        known = set(self.sources)
        for key in self.pages:
            if key not in known:
                self.index.add(key)  # imported before, excluded this time
        self._plan_slugs()
        self._plan_paths()
        for source in self.sources.values():
            source.targets = [self._target(ref, source) for ref in source.body.links]
        self._check_embeds()
        for source in self.sources.values():
            source.hash = self._hash(source, [t is not None for t in source.targets])

    def _check_embeds(self) -> None:
        """Warn of embeds a page cannot show: a folder, a note embedding itself.

        A folder is linked to instead. A loop (a note that embeds itself,
        straight or through others) is kept: the page shows it once, then a
        link (``blog.blocks.note``).
        """
        embeds: dict[PageKey, list[PageKey]] = {}
        for key, source in self.sources.items():
            for ref, target in zip(source.body.links, source.targets, strict=True):
                if not ref.embed or target is None:
                    continue
                if target[0] != POST:
                    ref.embed = False
                    source.warnings.append(
                        Issue(
                            f"embedded folder ![[{ref.url}]] imported as a link",
                            ref.line,
                        )
                    )
                else:
                    embeds.setdefault(key, []).append(target)
        for key, source in self.sources.items():
            for ref, target in zip(source.body.links, source.targets, strict=True):
                if ref.embed and target is not None and target[0] == POST:
                    path = _embed_path(embeds, target, key)
                    if path is not None:
                        chain = " → ".join(k[1] for k in [key, *path])
                        source.warnings.append(
                            Issue(
                                f"embedded note ![[{ref.url}]] embeds this note "
                                f"again ({chain}): shown once, then as a link",
                                ref.line,
                            )
                        )

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
        history = source.history
        options = {
            "version": IMPORTER_VERSION,
            # Dates from git: a deeper clone re-dates pages whose file is the same.
            "history": [str(history.created), str(history.updated)] if history else [],
            "draft": self.draft,
            "old_url_prefix": self.old_url_prefix,
            "breaks": self.breaks.value,
            "fetch_images": self.remote is not None
            and any(image.url for image in source.body.images),
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
        """Import a folder's posts and sub-folders under ``page``, then order them.

        They are added in reading order, so that pages of the same date, which
        listings show newest first and then by creation, list in it too.
        """
        children: list[tuple[Source, FolderNode | None]] = [
            (self.sources[(POST, rel)], None) for rel in folder.posts
        ]
        children += [
            (self.sources[(SERIES, node.rel)], node) for node in folder.folders
        ]
        for source, child in sorted(children, key=lambda item: item[0].sort_key()):
            if child is None:
                self._import_post(source, page)
                continue
            series = self._import_series(source, page)
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
        if self.keep_existing:
            try:
                if self._kept(source, parent, PostPage) is not None:
                    return
            except FileFailed as error:
                self.report.fail(POST, source.label, error.issues)
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
        if self.keep_existing:
            try:
                kept = self._kept(source, parent, SeriesPage)
            except FileFailed as error:
                self.report.fail(SERIES, source.label, error.issues)
                return None
            if kept is not None:
                return kept
        if existing is not None and existing.source_hash == source.hash:
            self.report.record(SERIES, "unchanged", source.label)
            return SeriesPage.objects.get(pk=existing.pk)
        saved = self._write(source, lambda: self._save_series(source, parent, existing))
        return SeriesPage.objects.get(pk=saved) if saved else None

    def _kept(self, source: Source, parent: Page, model: type[Page]) -> Page | None:
        """Return the page already in ``source``'s place, to be left as it is.

        That is the page made from the file before, else the page at its slug
        under ``parent``; None if there is neither. Raise FileFailed if the slug
        holds another type of page.
        """
        existing = self.pages.get(source.key)
        if existing is not None:
            page = model.objects.get(pk=existing.pk)
        else:
            page = parent.get_children().filter(slug=source.slug).specific().first()
            if page is None:
                return None
            if not isinstance(page, model):
                where = page.get_url() or page.url_path
                raise FileFailed(
                    f"{where} already exists as a {type(page).__name__}, "
                    f"not a {model.__name__}"
                )
            # Links to the file lead to the page in its place.
            self.pages[source.key] = PageInfo(page.pk, page.get_url() or "")
        self.report.record(source.kind, "unchanged", source.label)
        return page

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

    def _apply_order(self, folder: FolderNode, page: Page) -> None:
        """Move the folder's pages into reading order (the explorer's child order)."""
        sources = [self.sources[(POST, rel)] for rel in folder.posts]
        sources += [self.sources[(SERIES, child.rel)] for child in folder.folders]
        wanted = [
            self.pages[s.key].pk
            for s in sorted(sources, key=lambda s: s.sort_key())
            if s.key in self.pages
        ]
        if self.keep_existing:
            # Pages kept stay where they are, before the ones added (every page
            # written in this mode is new).
            added = {saved.pk for saved in self.saved}
            wanted = [pk for pk in wanted if pk in added]
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
                message = (
                    f"embedded note ![[{ref.url}]] not found: {why}; kept as text"
                    if ref.embed
                    else f"broken link to {ref.url}: {why}"
                )
                source.warnings.append(
                    Issue(
                        message,
                        ref.line,
                        kind=f"broken link: {why}",
                    )
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
                    self.report.fail(source.kind, source.label, [internal_error(error)])
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
        raw, _ = body_raw(source.body, resolved, saved.images)
        if source.kind == POST:
            page.body = self.body_block.to_python(raw)
        else:
            page.intro = self.body_block.to_python(raw)
        latest = page.get_latest_revision()
        # Complete the revision this run saved rather than adding a second one.
        overwrite = latest if latest and latest.pk == saved.revision_pk else None
        self._revise(page, source, saved.publish, overwrite)

    def _note_orphans(self) -> None:
        """Say which imported pages no longer have a file (they are kept)."""
        gone = sorted(key[1] for key in self.pages if key not in self.sources)
        if gone:
            shown = ", ".join(gone[:10]) + (" …" if len(gone) > 10 else "")
            self.report.notes.append(
                f"{len(gone)} imported pages have no source file any more (kept): {shown}"
            )


def _embed_path(
    embeds: dict[PageKey, list[PageKey]], start: PageKey, goal: PageKey
) -> list[PageKey] | None:
    """Return the notes from ``start`` that lead back to ``goal`` by embeds, or None."""
    seen: set[PageKey] = set()
    stack: list[tuple[PageKey, list[PageKey]]] = [(start, [start])]
    while stack:
        key, path = stack.pop()
        if key == goal:
            return path
        if key in seen:
            continue
        seen.add(key)
        stack.extend((nxt, [*path, nxt]) for nxt in embeds.get(key, []))
    return None
