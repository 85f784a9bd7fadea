"""Save the page of one file: build, validate, add or revise, publish, redirect.

Each file is saved in a transaction of its own; a failure rolls back that file
only. `SaveMixin` is part of `importer.Importer`.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.core.exceptions import ValidationError
from django.db import transaction
from wagtail.contrib.redirects.models import Redirect
from wagtail.models import Page

from blog.blocks import math_errors_allowed
from blog.models import PostPage, SeriesPage

from .documents import link_attachments
from .errors import (
    FileFailed,
    block_errors,
    error_messages,
    internal_error,
    slug_taken,
)
from .fetch import FetchError
from .fill import body_raw
from .links import POST
from .places import redirect_path
from .records import PageInfo, Saved, Source
from .report import Issue

ORDERINGS = {choice.value for choice in SeriesPage.Ordering}


class SaveMixin:
    """The write pass's page saving, for `Importer`."""

    def _write(self, source: Source, save: Callable[[], int]) -> int | None:
        """Run ``save`` in a transaction of its own; report what happened."""
        created = source.key not in self.pages
        try:
            with transaction.atomic():
                pk = save()
        except FileFailed as error:
            self.images.rollback()
            self.documents.rollback()
            self.report.fail(source.kind, source.label, error.issues)
            self.report.warn(source.warnings, source.label)
            return None
        except Exception as error:  # one bad file must not stop the run
            self.images.rollback()
            self.documents.rollback()
            self.report.fail(source.kind, source.label, [internal_error(error)])
            self.report.warn(source.warnings, source.label)
            return None
        self.images.commit()
        self.documents.commit()
        self.report.record(
            source.kind, "created" if created else "updated", source.label
        )
        self.report.warn(source.warnings, source.label)
        return pk

    def _save_post(
        self, source: Source, parent: Page, existing: PageInfo | None
    ) -> int:
        front = source.front
        image_pks = self._image_pks(source)
        self._attach(source)
        resolved = self._resolve(source, report=False)
        body = self._stream(*body_raw(source.body, resolved, image_pks))
        if existing is not None:
            page = PostPage.objects.get(pk=existing.pk).get_latest_revision_as_object()
        else:
            page, _ = self._adopt(parent, source, PostPage)
        date = source.date
        updated = source.updated
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
            page.allow_comments = front.comments
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
        image_pks = self._image_pks(source)
        self._attach(source)
        if source.path is not None:
            page.intro = self._stream(*body_raw(source.body, resolved, image_pks))
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
        return self._store(page, parent, source, resolved, image_pks)

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
        raise FileFailed(slug_taken(sibling, source.slug))

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
                raise FileFailed([Issue(m) for m in error_messages(error)]) from error
            if tags is not None and tags_with_revision:
                page.tags.set(tags)
        revision = None
        if not (new and waiting):
            revision = self._revise(page, source, publish and not waiting)
        self._set_hash(source, page.pk, "")
        self._redirects(page, source)
        self.pages[source.key] = PageInfo(
            page.pk, page.get_url() or "", source.hash, page.slug
        )
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
            raise FileFailed([Issue(m) for m in error_messages(error)]) from error
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
            if image.data:  # a drawing written in the body, checked by the parse
                pks.append(self.images.add(image.data, image.name, image.alt))
                continue
            if image.path is None:
                pks.append(self._remote_image_pk(source, image))
                continue
            try:
                pks.append(self.images.get(image.path, image.path.stem))
            except (OSError, ValueError) as error:
                source.warnings.append(
                    Issue(f"image not imported: {error}", image.line)
                )
                pks.append(None)
        return pks

    def _attach(self, source: Source) -> None:
        """Import the files the body links to as documents, and link to them."""
        attachments = source.body.attachments
        if not attachments:
            return
        pks: list[int | None] = []
        for ref in attachments:
            if ref.path is None:  # missing: reported by the parse
                pks.append(None)
                continue
            try:
                pks.append(self.documents.get(ref.path))
            except OSError as error:
                source.warnings.append(
                    Issue(f"attachment not imported: {ref.src} ({error})", ref.line)
                )
                pks.append(None)
        for block in source.body.blocks:
            block.value = link_attachments(block.value, attachments, pks)

    def _remote_image_pk(self, source: Source, image) -> int | None:
        """Return the library image of a remote one, with --fetch-images, else None."""
        if self.remote is None:
            return None
        try:
            data, name = self.remote.get(image.url)
            return self.images.add(data, name, "")
        except (FetchError, ValueError) as error:
            source.warnings.append(
                Issue(f"remote image not fetched: {image.url} ({error})", image.line)
            )
            return None

    def _cover(self, source: Source) -> int | None:
        if source.cover is None:
            return None
        try:
            return self.images.get(source.cover, source.title)
        except (OSError, ValueError) as error:
            source.warnings.append(Issue(f"cover not imported: {error}"))
            return None

    def _stream(self, raw: list[dict], lines: list[int]):
        """Return the body as a StreamValue, validated as the admin would.

        But for formulas KaTeX rejects: the parse kept them and warned (the admin
        shows the error on the block when an editor next saves it).
        """
        value = self.body_block.to_python(raw)
        # Embeds are checked when shown (fetching oEmbed here would need the network).
        checked = [i for i, block in enumerate(raw) if block["type"] != "embed"]
        try:
            with math_errors_allowed():
                self.body_block.clean(
                    self.body_block.to_python([raw[i] for i in checked])
                )
        except ValidationError as error:
            raise FileFailed(
                block_errors(error, [(raw[i]["type"], lines[i]) for i in checked])
            ) from error
        return value

    def _redirects(
        self, page: Page, source: Source, kinds: frozenset[str] | None = None
    ) -> list[str]:
        """Make the page's old URLs (path on the old site, aliases) redirect to it.

        Each is stored the way a browser asks for it (`redirect_path`). A path
        the site or another page answers is not taken over: it is skipped with
        a warning. ``kinds`` limits them to those kinds of old URL ("old URL",
        "alias"). Return the paths that now redirect.
        """
        parts = page.get_url_parts()
        own = Redirect.normalise_path(parts[2]) if parts and parts[2] else None
        done = set()
        redirected = []
        for _, what, path in self._old_urls(source):
            old = redirect_path(path)
            if kinds is not None and what not in kinds:
                continue
            if old in done or old in (own, "/") or len(old) > 255:
                continue
            done.add(old)
            owner = self._path_owner(path, source, page.pk)
            if owner is not None:
                source.warnings.append(
                    Issue(f"{what} not redirected: {unquote(old)} is {owner}")
                )
                continue
            self._redirect(page, source, old)
            redirected.append(old)
        return redirected

    def _redirect(self, page: Page, source: Source, old: str) -> None:
        """Make ``old`` redirect to ``page`` permanently."""
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
                    Issue(f"redirect {old} pointed at another page; now points here")
                )
            redirect.redirect_page = page
            redirect.redirect_link = ""
            redirect.is_permanent = True
            redirect.save()

    @staticmethod
    def _model(source: Source) -> type[Page]:
        return PostPage if source.kind == POST else SeriesPage
