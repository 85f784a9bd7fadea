"""The link pass: once every page exists, links between files are resolved.

A page written before the pages it links to is revised again, its revision
completed with the links it could not have at its save. `LinkMixin` is part
of `importer.Importer`.
"""

from __future__ import annotations

from django.db import transaction

from .errors import internal_error
from .fill import body_raw
from .links import POST
from .records import PageInfo, Saved, Source
from .report import Issue


class LinkMixin:
    """The link pass, for `Importer`."""

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
