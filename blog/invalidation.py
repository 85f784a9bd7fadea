"""Which cached pages a change makes stale, and the signals that purge them.

A post is shown on its own page and on: its sections and series (and their
feeds), the other posts of its series (their "part k of n" and previous/next),
home, the tag index and its tags' pages and feeds, the archive, the posts it
links to (their backlinks), the site feed, the sitemap, search results and its
social image. A nested series is shown on the pages above it and in the
breadcrumbs of every page under it. Home and top-level sections are in every
page's header, so changing them purges everything; so does renaming a tag,
which every card of its posts shows, and so does any change to a site or to
a view restriction. Replacing an image purges the posts that show it.

When a page's URL changes (a move or a new slug), its old URLs and the pages
whose links point at it are purged too.
"""

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models.functions import Cast
from django.db.models.signals import post_delete, post_save, pre_delete
from django.urls import reverse
from taggit.models import Tag
from wagtail.images import get_image_model
from wagtail.models import Page, PageViewRestriction, ReferenceIndex, Site
from wagtail.signals import (
    page_published,
    page_slug_changed,
    page_unpublished,
    post_page_move,
    pre_page_move,
)

from blog.models import (
    ArchivePage,
    HomePage,
    PostPage,
    PostTag,
    SeriesPage,
    TagIndexPage,
)
from pagecache.cache import purge_all, purge_paths, site_paths


def paths_of(pages) -> set[str]:
    """Return the paths of the given pages."""
    return {path for page in pages for path in site_paths(page.url_path)}


def site_wide_paths() -> set[str]:
    """Return the paths every new, changed or removed post shows up on."""
    return {reverse("feed"), reverse("search")} | sitemap_paths()


def sitemap_paths() -> set[str]:
    """Return the sitemap index and its file of pages (every ?p= of it)."""
    return {reverse("sitemap"), reverse("sitemap-section", args=["pages"])}


def tag_paths(tags) -> set[str]:
    """Return the tag index and, for each tag, its page and feed.

    The index and archive are looked up unordered: ordered by path, SQLite
    walks the whole page table to find them (8 ms at 10k posts, on every purge).
    """
    paths = set()
    for index_path in paths_of(TagIndexPage.objects.live().order_by().only("url_path")):
        paths.add(index_path)
        for tag in tags:
            paths |= {f"{index_path}{tag.slug}/", f"{index_path}{tag.slug}/feed/"}
    return paths


def section_paths(ancestors) -> set[str]:
    """Return the listings and feeds of the sections and series among ``ancestors``."""
    paths = paths_of(ancestors)
    for series in ancestors:
        if isinstance(series, SeriesPage):
            paths |= {f"{path}feed/" for path in site_paths(series.url_path)}
    return paths


def as_page_ids(references, field: str):
    """Return a subquery of page ids from a text id column of the reference index.

    PostgreSQL will not compare an integer with text, so the column is cast.
    """
    return references.annotate(page_id=Cast(field, models.IntegerField())).values(
        "page_id"
    )


def paths_showing(page) -> set[str] | None:
    """Return the paths of every public page that shows ``page``.

    ``None`` means every page (the header lists home's sections).
    """
    page = page.specific_deferred
    if isinstance(page, HomePage):
        return None
    ancestors = list(page.get_ancestors().specific())
    if isinstance(page, SeriesPage):
        if isinstance(ancestors[-1], HomePage):
            return None
        subtree = page.get_descendants(inclusive=True).only("url_path")
        return section_paths(ancestors + [page]) | paths_of(subtree)
    if isinstance(page, TagIndexPage):
        return paths_of([page]) | tag_paths(Tag.objects.all())
    if not isinstance(page, PostPage):
        return paths_of([page]) | sitemap_paths()

    paths = site_wide_paths() | section_paths(ancestors) | paths_of([page])
    paths.add(reverse("social_image", args=[page.pk]))
    parent = ancestors[-1]
    if isinstance(parent, SeriesPage) and parent.ordering == parent.Ordering.EXPLORER:
        paths |= paths_of(parent.get_children().live().only("url_path"))
    paths |= tag_paths(page.tags.all())
    paths |= paths_of(ArchivePage.objects.live().order_by().only("url_path"))
    linked = ReferenceIndex.get_references_for_object(page).filter(
        to_content_type=ContentType.objects.get_for_model(Page)
    )
    paths |= paths_of(
        Page.objects.filter(pk__in=as_page_ids(linked, "to_object_id")).only("url_path")
    )
    return paths


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


def _on_publish_or_unpublish(sender, instance, **kwargs):
    purge_page(instance)


def _before_move(sender, instance, **kwargs):
    # Where the page was: its listings, series and tags (as they were).
    if instance.live:
        purge_page(instance)


def _after_move(sender, instance, url_path_before, **kwargs):
    purge_subtree(instance, url_path_before)


def _on_slug_change(sender, instance, instance_before, **kwargs):
    purge_subtree(instance, instance_before.url_path)


def _before_delete(sender, instance, **kwargs):
    # Sent for each page of a deleted subtree, and again for the Page row of
    # each specific page: the specific one is enough.
    if isinstance(instance, Page) and type(instance) is not Page and instance.live:
        purge_paths(paths_linking_to([instance]))
        purge_page(instance)


def _on_post_tag_change(sender, instance, **kwargs):
    # A post gained or lost a tag (saved when the post is published, or
    # straight): the tag's pages list it, and the post shows its tags on its
    # page and in its feed entry, both kept under its path's token.
    # The post is looked up, not followed: it may be going in the same delete.
    posts = Page.objects.filter(pk=instance.content_object_id).only("url_path")
    purge_paths(tag_paths([instance.tag]) | paths_of(posts))


def _on_image_change(sender, instance, created=False, **kwargs):
    # A replaced file or new focal point changes the renditions its posts show.
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


def _on_tag_change(sender, instance, created=False, **kwargs):
    # A new tag is on no page yet; a renamed or deleted one is on its posts' cards.
    if not created:
        purge_all()


def _on_site_wide_change(sender, instance, **kwargs):
    # A site (its host, name or home) or a view restriction: which pages are
    # served, where and to whom. Sites and view restrictions are kept between
    # requests under the site's token (pagecache.sites, series.models).
    purge_all()


def connect() -> None:
    """Connect the purges to Wagtail's and Django's signals (from AppConfig.ready)."""
    page_published.connect(_on_publish_or_unpublish, dispatch_uid="pagecache")
    page_unpublished.connect(_on_publish_or_unpublish, dispatch_uid="pagecache")
    pre_page_move.connect(_before_move, dispatch_uid="pagecache")
    post_page_move.connect(_after_move, dispatch_uid="pagecache")
    page_slug_changed.connect(_on_slug_change, dispatch_uid="pagecache")
    pre_delete.connect(_before_delete, dispatch_uid="pagecache")
    post_save.connect(
        _on_image_change, sender=get_image_model(), dispatch_uid="pagecache"
    )
    for signal in (post_save, post_delete):
        signal.connect(_on_post_tag_change, sender=PostTag, dispatch_uid="pagecache")
        signal.connect(_on_tag_change, sender=Tag, dispatch_uid="pagecache")
        for model in (Site, PageViewRestriction):
            signal.connect(_on_site_wide_change, sender=model, dispatch_uid="pagecache")
