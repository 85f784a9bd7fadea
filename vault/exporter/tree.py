"""Write the page tree as folders of Markdown (docs/markdown-format.md).

Every series becomes a folder with an ``index.md``, every post a ``<slug>.md``
in its parent's folder, images are copied into an ``images/`` folder beside the
file that uses them. Each page is exported as its latest revision, so drafts and
unpublished edits are kept: the export is a backup. The tree is written into a
temporary folder next to OUTDIR and moved into place at the end, so a failed
export leaves nothing half-written.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from wagtail.contrib.redirects.models import Redirect
from wagtail.documents import get_document_model
from wagtail.images import get_image_model
from wagtail.models import Page, Site

from blog.models import ArchivePage, HomePage, PostPage, SeriesPage, TagIndexPage

from .blocks import body_to_markdown, document
from .richtext import rich_text_to_markdown

# Folder names the importer never reads as series (docs/markdown-format.md).
RESERVED_FOLDERS = ("images", "image", "img", "assets", "attachments")
IMAGES_FOLDER = "images"
ATTACHMENTS_FOLDER = "attachments"
NOT_EXPORTED = (TagIndexPage, ArchivePage)  # every site has its own


class ExportError(Exception):
    """The export cannot start or finish; nothing was written."""


@dataclass
class ExportStats:
    posts: int = 0
    series: int = 0
    drafts: int = 0
    images: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Node:
    page: Page  # the latest revision, as a page object
    live: bool
    url_path: str  # the live page's
    path: PurePosixPath  # the Markdown file, relative to OUTDIR
    weight: int


def _split_name(path: str, fallback: str) -> tuple[str, str]:
    """Return a stored file's name as (stem, ".ext" or "")."""
    original = PurePosixPath(path).name or fallback
    stem, dot, ext = original.rpartition(".")
    return (stem, f".{ext}") if dot else (original, "")


def _claim(taken: set[str], stem: str, suffix: str = "") -> str:
    """Return ``stem + suffix``, numbered if the folder already holds that name.

    Names are compared case-insensitively, for case-insensitive file systems.
    """
    name, number = f"{stem}{suffix}", 2
    while name.lower() in taken:
        name, number = f"{stem}-{number}{suffix}", number + 1
    taken.add(name.lower())
    return name


class _Exporter:
    def __init__(self, home: Page, root: Path):
        self.home = home
        self.root = root
        self.stats = ExportStats()
        self.nodes: list[_Node] = []
        self.page_paths: dict[int, PurePosixPath] = {}
        self.folder_names: dict[PurePosixPath, set[str]] = defaultdict(
            lambda: {
                name.lower() for name in (*RESERVED_FOLDERS, "index.md", "_index.md")
            }
        )
        self.image_names: dict[PurePosixPath, set[str]] = defaultdict(set)
        self.exported_images: dict[tuple[PurePosixPath, int], str | None] = {}
        self.images: dict[int, object] = {}
        self.document_names: dict[PurePosixPath, set[str]] = defaultdict(set)
        self.exported_documents: dict[tuple[PurePosixPath, int], str | None] = {}

    def warn(self, message: str) -> None:
        self.stats.warnings.append(message)

    # Planning: where each page goes.
    def plan(self, parent: Page, folder: PurePosixPath) -> None:
        weight = 0
        for child in parent.get_children().specific().order_by("path"):
            if isinstance(child, NOT_EXPORTED):
                continue
            if not isinstance(child, SeriesPage | PostPage):
                self.warn(f"{child.url_path}: a {type(child).__name__}, not exported")
                continue
            page = child.get_latest_revision_as_object()
            weight += 1
            taken = self.folder_names[folder]
            if isinstance(child, SeriesPage):
                subfolder = folder / _claim(taken, page.slug)
                path = subfolder / "index.md"
            else:
                path = folder / _claim(taken, page.slug, ".md")
            self.nodes.append(_Node(page, child.live, child.url_path, path, weight))
            self.page_paths[child.pk] = path
            if isinstance(child, SeriesPage):
                self.plan(child, subfolder)

    # Resolving what a file links to.
    def page_href(self, page_id: int, directory: PurePosixPath) -> str | None:
        target = self.page_paths.get(page_id)
        if target is not None:
            return posixpath.relpath(str(target), str(directory) or ".")
        page = Page.objects.filter(pk=page_id).first()
        return page.get_url() if page is not None else None

    def document_href(self, document_id: int, directory: PurePosixPath) -> str | None:
        """Copy the document's file beside the Markdown; return its relative path."""
        key = (directory, document_id)
        if key not in self.exported_documents:
            self.exported_documents[key] = self._copy_document(document_id, directory)
        return self.exported_documents[key]

    def _copy_document(self, document_id: int, directory: PurePosixPath) -> str | None:
        doc = get_document_model().objects.filter(pk=document_id).first()
        if doc is None:
            return None
        stem, suffix = _split_name(doc.file.name, f"document-{document_id}")
        relative, _ = self._copy_file(
            doc.file,
            directory,
            ATTACHMENTS_FOLDER,
            self.document_names[directory],
            (stem, suffix),
            "document",
        )
        return relative

    def image_src(self, image_id: int, directory: PurePosixPath) -> str | None:
        """Copy the image's original file beside the Markdown; return its path."""
        key = (directory, image_id)
        if key not in self.exported_images:
            self.exported_images[key] = self._copy_image(image_id, directory)
        return self.exported_images[key]

    def _copy_image(self, image_id: int, directory: PurePosixPath) -> str | None:
        if image_id not in self.images:
            self.images[image_id] = (
                get_image_model().objects.filter(pk=image_id).first()
            )
        image = self.images[image_id]
        if image is None:
            return None
        stem, suffix = _split_name(image.file.name, f"image-{image_id}")
        stem = _without_storage_suffix(stem, image.title)
        relative, copied = self._copy_file(
            image.file,
            directory,
            IMAGES_FOLDER,
            self.image_names[directory],
            (stem, suffix),
            "image",
        )
        if copied:
            self.stats.images += 1
        return relative

    def _copy_file(
        self,
        file,
        directory: PurePosixPath,
        folder: str,
        taken: set[str],
        wanted: tuple[str, str],
        kind: str,
    ) -> tuple[str, bool]:
        """Copy a media file into ``folder`` beside the Markdown, under a free name.

        ``wanted`` is the (stem, suffix) it would like; ``taken``, the names
        the folder already gives. Return its path relative to the Markdown, and whether
        it was copied (a failure is warned of, and the link kept).
        """
        name = _claim(taken, *wanted)
        relative = f"{folder}/{name}"
        target = self.root / directory / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with file.open("rb") as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
        except OSError as error:
            target.unlink(missing_ok=True)
            self.warn(f"{directory / relative}: {kind} file not copied ({error})")
            return relative, False
        return relative, True

    # Writing.
    def aliases(self) -> dict[int, list[str]]:
        """Return the old paths redirecting permanently to each exported page."""
        found: dict[int, set[str]] = defaultdict(set)
        redirects = Redirect.objects.filter(
            redirect_page_id__in=self.page_paths, is_permanent=True
        ).values_list("redirect_page_id", "old_path")
        for page_id, old_path in redirects:
            found[page_id].add(old_path)
        return {page_id: sorted(paths) for page_id, paths in found.items()}

    def own_path(self, url_path: str) -> str:
        return Redirect.normalise_path("/" + url_path[len(self.home.url_path) :])

    def run(self) -> ExportStats:
        self.plan(self.home, PurePosixPath())
        aliases = self.aliases()
        for node in self.nodes:
            page = node.page
            resolver = _FileResolver(self, node.path)
            old_paths = [
                path
                for path in aliases.get(page.pk, [])
                if path != self.own_path(node.url_path)
            ]
            if isinstance(page, SeriesPage):
                fields = self.series_fields(page, resolver)
                body = body_to_markdown(page.intro.raw_data, resolver)
                self.stats.series += 1
            else:
                fields = self.post_fields(page, resolver)
                body = body_to_markdown(page.body.raw_data, resolver)
                self.stats.posts += 1
            if old_paths:
                fields["aliases"] = old_paths
            if not node.live:
                fields["draft"] = True
                self.stats.drafts += 1
            if isinstance(page, PostPage) and page.allow_comments:
                fields["comments"] = True
            fields["weight"] = node.weight
            target = self.root / node.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(document(fields, body), encoding="utf-8", newline="\n")
        self.write_home()
        return self.stats

    def write_home(self) -> None:
        """Write the home page's intro as the root index.md (the importer's home)."""
        home = self.home.get_latest_revision_as_object()
        intro = getattr(home, "intro", "")
        if not intro:
            return
        text = rich_text_to_markdown(
            intro, _FileResolver(self, PurePosixPath("index.md"))
        )
        if text.strip():
            (self.root / "index.md").write_text(
                text.strip() + "\n", encoding="utf-8", newline="\n"
            )

    def series_fields(self, page: SeriesPage, resolver: _FileResolver) -> dict:
        fields = {"title": page.title, "slug": page.slug, "ordering": page.ordering}
        self.add_cover(fields, page, resolver)
        return fields

    def post_fields(self, page: PostPage, resolver: _FileResolver) -> dict:
        fields = {
            "title": page.title,
            "slug": page.slug,
            "date": page.date,
            "updated": page.updated,
        }
        tags = sorted(
            {tag.name for tag in page.tags.all()}, key=lambda n: (n.lower(), n)
        )
        if tags:
            fields["tags"] = tags
        if page.summary:
            fields["summary"] = page.summary
        self.add_cover(fields, page, resolver)
        return fields

    def add_cover(self, fields: dict, page: Page, resolver: _FileResolver) -> None:
        if page.cover_id is None:
            return
        src = resolver.image_src(page.cover_id)
        if src is None:
            resolver.warn(f"cover image {page.cover_id} is missing")
        else:
            fields["cover"] = src


class _FileResolver:
    """Resolve links and images for one Markdown file (see richtext.Resolver)."""

    def __init__(self, exporter: _Exporter, path: PurePosixPath):
        self.exporter = exporter
        self.path = path
        self.directory = path.parent

    def page_href(self, page_id: int) -> str | None:
        return self.exporter.page_href(page_id, self.directory)

    def document_href(self, document_id: int) -> str | None:
        return self.exporter.document_href(document_id, self.directory)

    def image_src(self, image_id: int) -> str | None:
        return self.exporter.image_src(image_id, self.directory)

    def warn(self, message: str) -> None:
        self.exporter.warn(f"{self.path}: {message}")


def _without_storage_suffix(stem: str, title: str) -> str:
    """Return a stored file's stem without the suffix storage added to keep it unique.

    Django names a second ``a.svg`` ``a_Xy12AbC.svg``; the export writes the
    name the image was imported as (its title), so an import reads it back the
    same.
    """
    match = re.fullmatch(r"(.+)_[A-Za-z0-9]{7}", stem)
    if match and match.group(1) == title:
        return title
    return stem


def default_home() -> Page:
    """Return the default site's home page."""
    site = Site.objects.select_related("root_page").filter(is_default_site=True).first()
    if site is None:
        raise ExportError("There is no default site; run `manage.py migrate` first.")
    home = site.root_page.specific
    if not isinstance(home, HomePage):
        raise ExportError(f"The default site's root page is a {type(home).__name__}.")
    return home


def export_site(outdir: str | os.PathLike, *, force: bool = False, home=None):
    """Export the tree under ``home`` (the default site's) to ``outdir``.

    Refuse a non-empty ``outdir`` unless ``force``, which replaces it whole.
    Return the `ExportStats`.
    """
    outdir = Path(os.path.abspath(outdir))
    if outdir.exists() and not outdir.is_dir():
        raise ExportError(f"{outdir} exists and is not a folder.")
    if outdir.is_dir() and any(outdir.iterdir()) and not force:
        raise ExportError(f"{outdir} is not empty; use --force to replace it.")
    home = home or default_home()
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", dir=outdir.parent))
    try:
        stats = _Exporter(home, staging).run()
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        _move_into_place(staging, outdir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return stats


def _move_into_place(staging: Path, outdir: Path) -> None:
    """Replace ``outdir`` with ``staging``."""
    if not outdir.exists():
        staging.rename(outdir)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.old.", dir=outdir.parent))
    old.rmdir()
    try:
        outdir.rename(old)
    except OSError:
        # A mount point or the like: empty it and move the new tree in.
        for entry in outdir.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        for entry in staging.iterdir():
            entry.rename(outdir / entry.name)
        staging.rmdir()
        return
    try:
        staging.rename(outdir)
    except OSError:
        old.rename(outdir)
        raise
    shutil.rmtree(old, ignore_errors=True)
