"""The plan: which pages earlier imports made, and each file's slug, links, hash.

Between reading and writing: every file gets its place (its slug and old
paths, in `places`), the page each of its links leads to, and the hash that
says whether it changed since the last import. `PlanMixin` is part of
`importer.Importer`.
"""

from __future__ import annotations

import hashlib
import json

from blog.models import PostPage, SeriesPage

from .inline import LinkRef
from .links import POST, SERIES, PageKey
from .records import PageInfo, Source
from .report import Issue

# Bump when the importer turns the same file into different pages, so that a
# re-import updates pages made by an older version instead of skipping them.
IMPORTER_VERSION = "11"


class PlanMixin:
    """The plan between the read and write passes, for `Importer`."""

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
