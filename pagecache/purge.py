"""Purge the cached pages a change makes stale: pages, images, sites, restrictions.

Each page type says which served paths show it, the way Wagtail pages say
which paths a frontend cache holds (``get_cached_paths``): a page's
``get_purge_paths()`` returns a set of paths, or None for every page of the
site (what is in every page's header, say). A page type without it purges its
own paths. So a new page type needs no edit here.

When a page's URL changes (a move or a new slug), its old URLs and the pages
whose content links to it are purged too; replacing an image purges the pages
that show it; a change to a site or a view restriction purges everything.
"""

import functools

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models.functions import Cast
from django.db.models.signals import post_delete, post_save, pre_delete
from wagtail.images import get_image_model
from wagtail.models import Page, PageViewRestriction, ReferenceIndex, Site
from wagtail.signals import (
    page_published,
    page_slug_changed,
    page_unpublished,
    post_page_move,
    pre_page_move,
)

from pagecache.cache import purge_all, purge_deferred, purge_paths, site_paths


def paths_of(pages) -> set[str]:
    """Return the paths the given pages are served at."""
    return {path for page in pages for path in site_paths(page.url_path)}


def as_page_ids(references, field: str):
    """Return a subquery of page ids from a text id column of the reference index.

    PostgreSQL will not compare an integer with text, so the column is cast.
    """
    return references.annotate(page_id=Cast(field, models.IntegerField())).values(
        "page_id"
    )


def paths_showing(page) -> set[str] | None:
    """Return the paths of every page that shows ``page``; None for every page."""
    page = page.specific_deferred
    declared = getattr(page, "get_purge_paths", None)
    return declared() if declared else paths_of([page])


def paths_linking_to(pages) -> set[str]:
    """Return the paths of pages whose content links to any of ``pages``."""
    page_type = ContentType.objects.get_for_model(Page)
    referrers = ReferenceIndex.objects.filter(
        to_content_type=page_type,
        to_object_id__in=[str(page.pk) for page in pages],
        base_content_type=page_type,
    )
    return paths_of(
        Page.objects.filter(pk__in=as_page_ids(referrers, "object_id")).only("url_path")
    )


def purge_page(page) -> None:
    """Purge every cached page that shows ``page``."""
    paths = paths_showing(page)
    if paths is None:
        purge_all()
    else:
        purge_paths(paths)


def purge_subtree(page, old_url_path: str) -> None:
    """Purge what showed ``page`` and the pages under it at ``old_url_path``.

    The subtree's old paths are derived from the current ones, which share the
    prefix ``page.url_path`` (the move or rename has happened).
    """
    subtree = list(page.get_descendants(inclusive=True).only("url_path"))
    old_paths = {
        path
        for descendant in subtree
        for path in site_paths(old_url_path + descendant.url_path[len(page.url_path) :])
    }
    purge_paths(old_paths | paths_linking_to(subtree))
    purge_page(page)


def _unless_deferred(receiver):
    """Skip working out what a change shows while everything is purged at the end."""

    @functools.wraps(receiver)
    def receive(*args, **kwargs):
        if not purge_deferred():
            receiver(*args, **kwargs)

    return receive


@_unless_deferred
def _on_publish(sender, instance, **kwargs):
    # Wagtail updates its reference index on a task worker, after the commit;
    # what shows this page (the pages it now links to: their backlinks) and
    # the backlinks rendered meanwhile are read from it, so it is brought up
    # to date here, in the publish's own transaction. The worker's update
    # later finds nothing to change.
    ReferenceIndex.create_or_update_for_object(instance)
    purge_page(instance)


@_unless_deferred
def _on_unpublish(sender, instance, **kwargs):
    purge_page(instance)


@_unless_deferred
def _before_move(sender, instance, **kwargs):
    # Where the page was: its listings, series and tags (as they were).
    if instance.live:
        purge_page(instance)


@_unless_deferred
def _after_move(sender, instance, url_path_before, **kwargs):
    purge_subtree(instance, url_path_before)


@_unless_deferred
def _on_slug_change(sender, instance, instance_before, **kwargs):
    purge_subtree(instance, instance_before.url_path)


@_unless_deferred
def _before_delete(sender, instance, **kwargs):
    # Sent for each page of a deleted subtree, and again for the Page row of
    # each specific page: the specific one is enough.
    if isinstance(instance, Page) and type(instance) is not Page and instance.live:
        purge_paths(paths_linking_to([instance]))
        purge_page(instance)


@_unless_deferred
def _on_image_change(sender, instance, created=False, **kwargs):
    # A replaced file or new focal point changes the renditions its pages show.
    if created:
        return
    referrers = ReferenceIndex.get_references_to(instance).filter(
        base_content_type=ContentType.objects.get_for_model(Page)
    )
    for page in (
        Page.objects.live()
        .filter(pk__in=as_page_ids(referrers, "object_id"))
        .specific()
    ):
        purge_page(page)


def _on_site_wide_change(sender, instance, **kwargs):
    # A site (its host, name or home) or a view restriction: which pages are
    # served, where and to whom. Sites and view restrictions are kept between
    # requests under the site's token (pagecache.sites, blog.models.base).
    purge_all()


def connect() -> None:
    """Connect the purges to Wagtail's and Django's signals (from AppConfig.ready)."""
    page_published.connect(_on_publish, dispatch_uid="pagecache")
    page_unpublished.connect(_on_unpublish, dispatch_uid="pagecache")
    pre_page_move.connect(_before_move, dispatch_uid="pagecache")
    post_page_move.connect(_after_move, dispatch_uid="pagecache")
    page_slug_changed.connect(_on_slug_change, dispatch_uid="pagecache")
    pre_delete.connect(_before_delete, dispatch_uid="pagecache")
    post_save.connect(
        _on_image_change, sender=get_image_model(), dispatch_uid="pagecache"
    )
    for signal in (post_save, post_delete):
        for model in (Site, PageViewRestriction):
            signal.connect(_on_site_wide_change, sender=model, dispatch_uid="pagecache")
