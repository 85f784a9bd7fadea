"""The writing dashboard's checks of a body: its links to pages, its bad formulas.

A page's latest body (the one its editor opens) is checked when it is saved,
as a revision or as the page, by a task on the workers (``check_task``): a
save does not wait for KaTeX's answer on each of a long post's formulas. What
was found is kept in `BodyCheck`, `BodyLink` and `BadFormula`; the dashboard
then reads those tables, never the bodies. A body checked before (same digest)
is not checked again, and KaTeX's answers are cached by formula, so a check
of a checked body costs one query.
Whether a link is broken is decided when the dashboard is shown: the page it
names may be deleted, unpublished or moved after the link was saved.
"""

import hashlib
import json
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models.signals import post_save
from django.http import Http404
from django.urls import Resolver404, resolve
from wagtail.contrib.routable_page.models import RoutablePageMixin
from wagtail.models import Page, Revision, Site

from background.queue import after_the_editor
from background.retry import retried
from blog import warming
from blog.blocks import Text
from blog.models.writing import BadFormula, BodyCheck, BodyLink
from blog.text import body_pieces
from rendering import (
    check_math,
    inline_formulas,
    katex_version,
    markdown_formulas,
    markdown_links,
)

# Bump when what is found in a body changes, so that every body is checked again.
CHECK_VERSION = "1"
LINK_TEXT_LENGTH = 255


@dataclass(frozen=True)
class FoundLink:
    block_id: str
    block_type: str
    text: str
    page_id: int | None = None  # a rich text link
    href: str = ""  # a URL: a Markdown link, or a rich text link by address


@dataclass(frozen=True)
class FoundFormula:
    block_id: str
    block_type: str
    tex: str
    message: str


class _Links(HTMLParser):
    """Collect the links of Wagtail rich text that may name a page of this site.

    Each is ``(page id, "", text)`` for a page link, ``(None, href, text)`` for a
    URL on this site (``/cuda/x/``).
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[int | None, str, str]] = []
        self._open: list[tuple[int | None, str, list[str]]] = []

    def handle_starttag(self, tag, attrs):
        if tag != "a":
            return
        attrs = dict(attrs)
        page_id, href = None, ""
        if attrs.get("linktype") == "page" and (attrs.get("id") or "").isdigit():
            page_id = int(attrs["id"])
        elif not attrs.get("linktype"):
            href = attrs.get("href") or ""
        self._open.append((page_id, href, []))

    def handle_endtag(self, tag):
        if tag == "a" and self._open:
            page_id, href, words = self._open.pop()
            if page_id is not None or href.startswith("/"):
                self.links.append((page_id, href, " ".join("".join(words).split())))

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)


def rich_text_links(html: str) -> list[tuple[int | None, str, str]]:
    """Return ``(page id, href, text)`` for each link of rich text to this site."""
    parser = _Links()
    parser.feed(html)
    parser.close()
    return parser.links


def _formulas(kind: Text, text: str) -> Iterable[tuple[str, bool]]:
    if kind is Text.TEX:
        return [(text, True)] if text.strip() else []
    if kind is Text.PROSE:
        return [(tex, False) for tex in inline_formulas(text)]
    if kind is Text.RICH_TEXT:
        return [(tex, False) for tex in inline_formulas(text, html=True)]
    if kind is Text.MARKDOWN:
        return markdown_formulas(text)
    return []


def body_findings(
    raw_blocks: Iterable[Mapping],
) -> tuple[list[FoundLink], list[FoundFormula]]:
    """Return the page links and the formulas KaTeX rejects of a body's raw data."""
    links: list[FoundLink] = []
    formulas: list[FoundFormula] = []
    for raw in raw_blocks:
        block_id, block_type = raw.get("id") or "", raw.get("type") or ""
        for piece in body_pieces([raw]):
            for tex, display in _formulas(piece.kind, piece.text):
                if (message := check_math(tex, display)) is not None:
                    formulas.append(FoundFormula(block_id, block_type, tex, message))
            if piece.kind is Text.RICH_TEXT:
                links += [
                    FoundLink(block_id, block_type, text, page_id=page_id, href=href)
                    for page_id, href, text in rich_text_links(piece.text)
                ]
            elif piece.kind is Text.MARKDOWN:
                links += [
                    FoundLink(block_id, block_type, text, href=href)
                    for href, text in markdown_links(piece.text)
                ]
    return links, formulas


def _page_path(href: str) -> str | None:
    """Return the site path a link by URL may name a page by, or None.

    Only root-relative links served by Wagtail's page view count: not other
    sites, anchors, media, feeds or search.
    """
    if not href.startswith("/") or href.startswith("//"):
        return None
    path = unquote(urlsplit(href).path)
    if not path.endswith("/") and "." not in posixpath.basename(path):
        path += "/"  # Django's APPEND_SLASH answers it with the page
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return path if match.url_name == "wagtail_serve" else None


def _resolve_markdown_links(hrefs: Iterable[str]) -> dict[str, tuple[int | None, str]]:
    """Return, for each link that names a page, that page's id and url_path.

    The id is None when no page is there. A link to one of a routable page's
    own routes (a tag, a feed) is left out: it names no page.
    """
    paths = {href: path for href in hrefs if (path := _page_path(href)) is not None}
    if not paths:
        return {}
    site = Site.objects.filter(is_default_site=True).select_related("root_page")
    site = site.first()
    if site is None:
        return {}
    root = site.root_page.url_path
    wanted = {href: root + path.lstrip("/") for href, path in paths.items()}
    prefixes = set()
    for url_path in wanted.values():
        parts = url_path.strip("/").split("/")
        prefixes.update("/" + "/".join(parts[:n]) + "/" for n in range(1, len(parts)))
    pages = {
        page.url_path: page
        for page in Page.objects.filter(url_path__in=prefixes | set(wanted.values()))
    }
    found = {}
    for href, url_path in wanted.items():
        if url_path in pages:
            found[href] = (pages[url_path].pk, url_path)
            continue
        parts = url_path.strip("/").split("/")
        nearest = next(
            (
                pages[prefix]
                for n in range(len(parts) - 1, 0, -1)
                if (prefix := "/" + "/".join(parts[:n]) + "/") in pages
            ),
            None,
        )
        if nearest is not None and _is_route(nearest, url_path):
            continue
        found[href] = (None, url_path)
    return found


def _is_route(page, url_path: str) -> bool:
    """Return whether ``url_path`` is one of a routable page's own routes."""
    if not issubclass(page.specific_class or Page, RoutablePageMixin):
        return False
    try:
        page.specific.resolve_subpage("/" + url_path.removeprefix(page.url_path))
    except Http404:
        return False
    return True


def _digest(raw_blocks: list) -> str:
    text = json.dumps(
        [CHECK_VERSION, katex_version(), raw_blocks],
        ensure_ascii=False,
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_body(page_id: int, raw_blocks: list) -> bool:
    """Record the links and bad formulas of a page's latest body.

    Return False if this body was already checked.
    """
    digest = _digest(raw_blocks)
    if BodyCheck.objects.filter(pk=page_id, digest=digest).exists():
        return False
    links, formulas = body_findings(raw_blocks)
    targets = _resolve_markdown_links(link.href for link in links if link.href)
    link_rows = []
    for link in links:
        if link.href:
            if link.href not in targets:
                continue
            page_id_, url_path = targets[link.href]
        else:
            page_id_, url_path = link.page_id, ""
        link_rows.append(
            BodyLink(
                body_check_id=page_id,
                block_id=link.block_id,
                block_type=link.block_type,
                text=link.text[:LINK_TEXT_LENGTH],
                target_page_id=page_id_,
                target_url_path=url_path,
            )
        )
    with transaction.atomic():
        BodyCheck.objects.update_or_create(pk=page_id, defaults={"digest": digest})
        BodyLink.objects.filter(body_check_id=page_id).delete()
        BadFormula.objects.filter(body_check_id=page_id).delete()
        BodyLink.objects.bulk_create(link_rows)
        BadFormula.objects.bulk_create(
            BadFormula(
                body_check_id=page_id,
                block_id=found.block_id,
                block_type=found.block_type,
                tex=found.tex,
                message=found.message,
            )
            for found in formulas
        )
    return True


def check_page(page) -> bool:
    """Check the body an editor of ``page`` opens: its latest revision's, or its own."""
    revision = page.latest_revision
    if revision is not None and page.has_unpublished_changes:
        return _check_content(page.pk, page.body_field, revision.content)
    return check_body(page.pk, list(getattr(page, page.body_field).raw_data))


def _check_content(page_id, field: str, content: Mapping) -> bool:
    raw = content.get(field) or "[]"
    return check_body(page_id, json.loads(raw) if isinstance(raw, str) else raw)


def checked_models() -> list[type]:
    """Return the page types whose bodies the dashboard checks."""
    from blog.models import PostPage, SeriesPage

    return [PostPage, SeriesPage]


@retried()
def check_task(page_id: int, revision_id: int | None = None) -> bool:
    """Check the body of revision ``revision_id`` of a page, or the page's own.

    A revision that is no longer the page's newest is left to the newest's
    own task; so is the page's own body when a revision holds the one its
    editor opens. Return whether a body was checked.
    """
    with transaction.atomic():
        if revision_id is not None:
            revision = Revision.objects.filter(pk=revision_id).first()
            if revision is None or _newer_revision_exists(revision):
                return False
            model = ContentType.objects.get_for_id(revision.content_type_id)
            field = model.model_class().body_field
            return _check_content(page_id, field, revision.content)
        page = Page.objects.filter(pk=page_id).specific().first()
        if page is None or type(page) not in checked_models():
            return False
        if page.latest_revision_id and page.has_unpublished_changes:
            return False
        return check_body(page.pk, list(getattr(page, page.body_field).raw_data))


def _newer_revision_exists(revision: Revision) -> bool:
    return Revision.objects.filter(
        base_content_type_id=revision.base_content_type_id,
        object_id=revision.object_id,
        pk__gt=revision.pk,
    ).exists()


def _queue_check(page_id: int, revision_id: int | None = None) -> None:
    # Queued in the save's transaction, as Wagtail's search index updates
    # are: the database queue's worker finds the task once the save commits,
    # and none for a save rolled back. A check that fails is retried, and
    # never in the way of the save. A bulk change (an import) saves a page
    # several times (its revision, the page, the publish): it notes the page,
    # and queues one check of each at its end (``enqueue_checks``).
    noted = warming.noting()
    if noted is not None:
        noted.checks.add(page_id)
        return
    check = check_task.using(priority=warming.EDITOR_PRIORITY)
    after_the_editor(check).enqueue(page_id, revision_id)


def enqueue_checks(page_ids: Iterable[int]) -> list[str]:
    """Queue as bulk work one check of each page's newest body; return the task ids.

    The newest body is its latest revision's (the one its editor opens), or
    the page's own when it has none.
    """
    bulk = check_task.using(priority=warming.BULK_PRIORITY)
    latest = dict(
        Page.objects.filter(pk__in=set(page_ids))
        .order_by("pk")
        .values_list("pk", "latest_revision_id")
    )
    return [str(bulk.enqueue(pk, revision_id).id) for pk, revision_id in latest.items()]


def _revision_saved(sender, instance, raw=False, update_fields=None, **kwargs):
    if raw or (update_fields is not None and "content" not in update_fields):
        return
    model = ContentType.objects.get_for_id(instance.content_type_id).model_class()
    if model not in checked_models():
        return
    _queue_check(int(instance.object_id), instance.pk)


def _page_saved(sender, instance, raw=False, update_fields=None, **kwargs):
    if raw or (update_fields is not None and instance.body_field not in update_fields):
        return
    if instance.latest_revision_id and instance.has_unpublished_changes:
        return  # the latest revision holds the body its editor opens
    _queue_check(instance.pk)


def connect() -> None:
    post_save.connect(_revision_saved, sender=Revision, dispatch_uid="writing")
    for model in checked_models():
        post_save.connect(_page_saved, sender=model, dispatch_uid=f"writing-{model}")
