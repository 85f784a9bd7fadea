"""Import a vault of Markdown files into the page tree (docs/markdown-format.md).

Three steps. Read: every file is decoded, its front matter and body parsed
(no database). Write: folders become `SeriesPage`s and files `PostPage`s, parents
first, each file in its own transaction; unchanged files (same `source_hash`)
are skipped. Link: once every page exists, links between files are resolved and
the pages that gained links get their revision updated. The driver and the
write pass are here; reading is in `reading`, the plan between reading and
writing (slugs, link targets, hashes) in `planning`, the link pass in
`linking`, and saving one page in `saving`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

from django.db import transaction
from wagtail.models import Page

from background.queue import is_queued
from blog import warming, writing
from blog.models import PostPage, SeriesPage
from pagecache.cache import purge_all_at_end

from .assets import AssetFinder
from .dialect import Choice, line_breaks, site_name
from .documents import DocumentStore
from .errors import FileFailed
from .fetch import RemoteImages
from .history import is_shallow
from .home import HomeMixin
from .images import ImageStore
from .indexing import deferred_index_updates
from .linking import LinkMixin
from .links import POST, SERIES, LinkIndex, PageKey
from .places import PlacesMixin
from .planning import PlanMixin
from .reading import ReadMixin
from .records import PageInfo, Saved, Source
from .report import Issue, Report
from .saving import SaveMixin
from .theme import ThemeMixin
from .tree import FolderNode

# An import changing more pages than this purges the whole page cache once.
PURGE_ALL_ABOVE = 20


class Importer(
    ReadMixin, PlanMixin, SaveMixin, LinkMixin, PlacesMixin, HomeMixin, ThemeMixin
):
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

    def _note_orphans(self) -> None:
        """Say which imported pages no longer have a file (they are kept)."""
        gone = sorted(key[1] for key in self.pages if key not in self.sources)
        if gone:
            shown = ", ".join(gone[:10]) + (" …" if len(gone) > 10 else "")
            self.report.notes.append(
                f"{len(gone)} imported pages have no source file any more (kept): {shown}"
            )
