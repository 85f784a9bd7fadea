"""Which URL paths are taken: by the site's own views, by pages, by page routes.

An imported page may not take a slug that the site already answers (`/admin/`,
`/feed/`, `/static/`…, the tag index at `/tags/`, a series' `feed/`, another
page), and an old URL or alias may not redirect from a path that the site's
views or another page answer.
"""

from __future__ import annotations

import functools
import posixpath
import re
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.http import Http404
from django.urls import Resolver404, get_resolver, resolve
from django.utils.encoding import escape_uri_path
from wagtail.contrib.redirects.models import Redirect
from wagtail.contrib.routable_page.models import RoutablePageMixin
from wagtail.models import Page, Site

from blog.models import PostPage, SeriesPage
from serving.health import HealthCheckMiddleware

from .links import POST, SERIES, PageKey, alias_paths, old_paths
from .records import Source
from .report import Issue
from .tree import slug_for

_LITERAL = re.compile(r"[\w.-]+")


@functools.cache
def reserved_segments() -> frozenset[str]:
    """Return the first path segments the site answers itself (admin, feed, static…).

    Read from the URLconf (every pattern before Wagtail's page serving that
    starts with a literal segment), the static and media URLs, and /healthz.
    """
    names = set()
    for pattern in get_resolver().url_patterns:
        first = str(pattern.pattern).lstrip("^").split("/", 1)[0]
        if _LITERAL.fullmatch(first):
            names.add(first)
    for url in (settings.STATIC_URL, settings.MEDIA_URL):
        path = urlsplit(url or "").path.strip("/")
        if path and not urlsplit(url).netloc:
            names.add(path.split("/", 1)[0])
    names.add(HealthCheckMiddleware.path.strip("/"))
    return frozenset(names)


def redirect_path(path: str) -> str:
    """Return ``path`` (as written: spaces, Unicode) as a Redirect's ``old_path``.

    Wagtail's redirect middleware looks a request up by its path as Django
    re-encodes it (a space as ``%20``, ``#`` as ``%23``), with the UTF-8 of
    non-ASCII letters decoded; this is that form, without a trailing slash.
    """
    return Redirect.normalise_path(escape_uri_path(path))


def route_answers(page: Page, rest: str) -> bool:
    """Return True if ``page``'s own routes (RoutablePageMixin) answer ``rest``."""
    if not isinstance(page, RoutablePageMixin):
        return False
    try:
        page.resolve_subpage("/" + rest.strip("/") + "/")
    except Http404:
        return False
    return True


def site_answers(path: str) -> bool:
    """Return True if a view other than Wagtail's page serving answers ``path``."""
    path = "/" + path.strip("/")
    if path.strip("/").split("/", 1)[0] in reserved_segments():
        return True
    for candidate in (path, path + "/"):
        try:
            match = resolve(candidate)
        except Resolver404:
            continue
        if match.url_name != "wagtail_serve":
            return True
    return False


def describe(page: Page) -> str:
    """Return ``/tags/ (TagIndexPage)``: where a page is, and what it is."""
    where = page.get_url() or page.url_path
    return f"{unquote(where)} ({page.specific_class.__name__})"


def site_roots() -> list[str]:
    """Return the ``url_path`` of every site's root page."""
    return list(Site.objects.values_list("root_page__url_path", flat=True))


def url_paths(path: str, roots: list[str]) -> list[str]:
    """Return the ``url_path`` a page at the URL ``path`` has on each site."""
    rel = "".join(s + "/" for s in unquote(path).split("/") if s)
    return [root + rel for root in roots]


def page_at(path: str, roots: list[str]) -> Page | None:
    """Return the page whose own path is ``path`` on any site, else None."""
    found = Page.objects.filter(url_path__in=url_paths(path, roots))
    return found.order_by("pk").first()


class PlacesMixin:
    """Slugs and paths for `Importer`: each page a free slug, each redirect a free path."""

    def _plan_slugs(self) -> None:
        """Give every source a slug no other page, route or view holds in its folder.

        A page made from the same source before keeps its slug; the others take
        their name's slug, else the first free ``slug-2``, ``slug-3``… with a
        warning, and the summary lists them.
        """
        by_folder: dict[str, list[Source]] = {}
        for source in self.sources.values():
            by_folder.setdefault(posixpath.dirname(source.rel), []).append(source)
        mine = {self.pages[key].pk for key in self.sources if key in self.pages}
        moved = []
        for folder, siblings in by_folder.items():
            parent = self._folder_page(folder)
            holders = _Holders(self, parent, mine)
            # Pages already made keep their slugs; new ones take what is left.
            for source in sorted(
                siblings, key=lambda s: (s.key not in self.pages, s.sort_key(), s.name)
            ):
                base = slug_for(source.front.slug or source.name)
                existing = self.pages.get(source.key)
                current = existing.slug if existing else ""
                slug = next(
                    slug
                    for slug in _candidates(base, current)
                    if holders.why(slug, source) is None
                )
                if slug != base:
                    why = holders.why(base, source)
                    source.warnings.append(
                        Issue(f"slug taken: {base!r} is {why}; using {slug!r}")
                    )
                    moved.append(f"{source.label} → {slug} ({base} is {why})")
                holders.held[slug] = source
                source.slug = slug
        if moved:
            self.report.notes.append(
                f"Slugs taken, so {len(moved)} "
                f"{'page is' if len(moved) == 1 else 'pages are'} at another: "
                + "; ".join(moved)
            )

    def _folder_page(self, folder: str) -> Page | None:
        """Return the page a folder's pages go under, if it exists yet."""
        if not folder:
            return self.parent
        existing = self.pages.get((SERIES, folder))
        return Page.objects.get(pk=existing.pk).specific if existing else None

    def _plan_paths(self) -> None:
        """Note where each source's page will be (its ``url_path``), for `_path_owner`."""
        self.roots = site_roots()
        self.planned: dict[str, PageKey] = {}
        folders: dict[str, str] = {"": self.parent.url_path}

        def folder_url(rel: str) -> str:
            if rel not in folders:
                series = self.sources.get((SERIES, rel))
                slug = series.slug if series else posixpath.basename(rel)
                folders[rel] = f"{folder_url(posixpath.dirname(rel))}{slug}/"
            return folders[rel]

        claims = []
        for key, source in self.sources.items():
            if key[0] == SERIES:
                self.planned[folder_url(source.rel)] = key
            else:
                url = folder_url(posixpath.dirname(source.rel))
                self.planned[f"{url}{source.slug}/"] = key
            for rank, _, path in self._old_urls(source):
                claims.append((rank, source.rel, redirect_path(path), key))
        self.old_urls: dict[str, PageKey] = {}
        for _, _, old, key in sorted(claims):
            self.old_urls.setdefault(old, key)

    def _path_owner(self, path: str, source: Source, pk: int) -> str | None:
        """Return what answers ``path`` already (an old URL), or None if it is free.

        The page ``pk`` itself does not count: its own path is never redirected.
        A path under a page's routes (a tag's page, `/tags/x/`) is free: the
        redirect answers only where the route finds nothing.
        """
        if site_answers(path):
            return "reserved by the site"
        page = page_at(path, self.roots)
        if page is not None and page.pk != pk:
            return f"the path of {describe(page)}"
        for url in url_paths(path, self.roots):
            key = self.planned.get(url)
            if key is not None and key != source.key:
                return f"the path of the page of {self.sources[key].label}"
        claimant = self.old_urls.get(redirect_path(path))
        if claimant is not None and claimant != source.key:
            return f"an old URL of {self.sources[claimant].label} too"
        return None

    def _old_urls(self, source: Source) -> list[tuple[int, str, str]]:
        """Return ``(rank, kind, path)`` of every old URL of ``source``'s page.

        Where two files claim one path, the lower rank wins: the path as the
        file is written, then Quartz's form of it (`C#.md` gives `/C` too), then
        an alias as written, then Quartz's form of an alias.
        """
        folder = source.kind == SERIES
        prefix = self.old_url_prefix
        # Each gives Quartz's form first, then the path as written (one if equal).
        paths = old_paths(source.rel, folder=folder, prefix=prefix)
        urls = [(0 if path == paths[-1] else 1, "old URL", path) for path in paths]
        aliases = [
            alias_paths([alias], source.rel, folder=folder, prefix=prefix)
            for alias in source.front.aliases
        ]
        if source.front.permalink:
            aliases.append(alias_paths([source.front.permalink], "", folder=True))
        for forms in aliases:
            urls += [(2 if path == forms[-1] else 3, "alias", path) for path in forms]
        return urls


def _candidates(base: str, current: str):
    """Yield the slugs a page may take: the one it has, its name's, then -2, -3…"""
    stem = base[:250].rstrip("-")
    if current == base or re.fullmatch(re.escape(stem) + r"-\d+", current):
        yield current
    yield base
    n = 2
    while True:
        yield f"{stem}-{n}"
        n += 1


class _Holders:
    """What holds each slug under one parent: pages, the site's views, routes."""

    def __init__(self, importer: PlacesMixin, parent: Page | None, mine: set[int]):
        self.importer = importer
        self.held: dict[str, Source] = {}  # slugs given in this run
        self.parent = parent
        self.router = parent if parent is not None else SeriesPage()
        self.at_root = (
            parent is not None and Site.objects.filter(root_page=parent).exists()
        )
        others = (
            []
            if parent is None
            else [
                pk
                for pk in parent.get_children().values_list("pk", flat=True)
                if pk not in mine
            ]
        )
        # Specific, to tell a page made in the admin from one imported.
        self.pages = {
            page.slug: page for page in Page.objects.filter(pk__in=others).specific()
        }

    def why(self, slug: str, source: Source) -> str | None:
        """Return what holds ``slug`` against ``source``, None if it may take it."""
        if slug in self.held:
            return f"used by {self.held[slug].label}"
        if self.at_root and slug in reserved_segments():
            return f"reserved by the site (/{slug}/)"
        if route_answers(self.router, slug):
            where = describe(self.parent) if self.parent else "its series"
            return f"a route of {where}"
        page = self.pages.get(slug)
        if page is not None and not self._may_take(page, source):
            return f"used by {describe(page)}"
        return None

    def _may_take(self, page: Page, source: Source) -> bool:
        """Return True if ``source`` takes over ``page`` (see `SaveMixin._adopt`).

        Keeping existing pages (`load_demo`), the page at the slug is kept as
        it is, or the file fails if it is of another type.
        """
        if self.importer.keep_existing:
            return True
        model = PostPage if source.kind == POST else SeriesPage
        return isinstance(page, model) and not page.source_path
