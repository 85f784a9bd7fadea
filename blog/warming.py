"""Render what readers will ask for before they come, on the task workers.

A reader's request renders only what its budget allows (``serving/budget.py``);
the rest is made here, by tasks a worker runs (``manage.py db_worker``;
``background/``): a page's body (math, code, headings, and the renditions of
its images) and a post's feed entry, kept in the render cache, and every
rendition the templates show of an image.

- When a page is published, or an image saved, a task is queued once the
  transaction commits; an editor's publish runs ahead of bulk work.
- ``import_markdown`` collects what it touched (``collected()``): a task per
  image is queued as soon as the image is stored, so that the workers encode
  its renditions while the import goes on, and a task per few pages at its
  end (``enqueue``), when every page and link is written; any number of
  workers share them.
- ``manage.py warm_cache`` warms the whole site in its own process: after a
  deploy or a flush of Redis. gunicorn starts it beside the workers
  (``config/gunicorn.py``).

Rendering is by content hash, so warming what is warm already costs a cache
read per body; every task can run twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from urllib.parse import urljoin

from django.db import transaction
from wagtail.images import get_image_model
from wagtail.images.shortcuts import get_renditions_or_not_found
from wagtail.models import Page

from background.queue import after_the_editor
from background.retry import retried
from blog.models import PostPage, SeriesPage
from blog.site_urls import root_url_of
from blog.templatetags.picture_tags import picture_specs

logger = logging.getLogger(__name__)

# Posts whose feed entries are rendered in one go (one query loads them).
FEED_BATCH = 20
# Pages one queued task renders: enough to share the cost of a task's start,
# few enough that two workers share an import's pages evenly.
PAGE_BATCH = 5
# An editor's publish or upload runs before the bulk work of an import.
EDITOR_PRIORITY = 10
BULK_PRIORITY = 0


@dataclass
class Noted:
    """Pages and images to warm once a bulk change ends, and bodies to check."""

    pages: set[int] = field(default_factory=set)
    images: set[int] = field(default_factory=set)
    # Pages whose bodies the writing dashboard checks (blog/writing.py): once
    # each, however many times the bulk change saved them.
    checks: set[int] = field(default_factory=set)
    # The ids of the tasks queued while the change goes on (its images').
    queued: list[str] = field(default_factory=list)


_collecting: ContextVar[Noted | None] = ContextVar("warming_collected", default=None)


@contextmanager
def collected() -> Iterator[Noted]:
    """Note the pages published and images saved inside the block, not warm them.

    The caller warms them at its end (``warm``): a bulk change renders each
    once, not at every save.
    """
    noted = Noted()
    token = _collecting.set(noted)
    try:
        yield noted
    finally:
        _collecting.reset(token)


def warm(
    pages: Iterable[int] = (),
    images: Iterable[int] = (),
    progress: Callable[[int, int, str], None] | None = None,
    *,
    failures: list[str] | None = None,
) -> int:
    """Render the pages and images of these ids; return how many were warmed.

    ``progress(done, total, label)`` is told of each. One that fails is logged
    and skipped (and named in ``failures``): warming is an optimisation,
    never a reason to fail a save.
    """
    failures = [] if failures is None else failures
    pages = set(pages)
    posts = PostPage.objects.live().filter(pk__in=pages).order_by("-date", "-pk")
    found = [*posts, *SeriesPage.objects.live().filter(pk__in=pages)]
    work = [*found, *sorted(set(images))]
    warmed = 0
    for done, item in enumerate(work, 1):
        try:
            if isinstance(item, Page):
                warm_page(item)
            else:
                warm_image(item)
        except Exception as error:
            logger.exception("Could not warm %r", item)
            failures.append(f"{item!r}: {error!r}")
        else:
            warmed += 1
        if progress is not None:
            progress(done, len(work), str(item) if isinstance(item, Page) else "图片")
    feed_posts = [page.pk for page in found if isinstance(page, PostPage)]
    for start in range(0, len(feed_posts), FEED_BATCH):
        try:
            warm_feed_entries(feed_posts[start : start + FEED_BATCH])
        except Exception as error:
            logger.exception("Could not warm feed entries")
            failures.append(f"feed entries: {error!r}")
    return warmed


def warm_page(page) -> None:
    """Render ``page``'s body for its page (its images' renditions with it)."""
    page.rendered(None)


def warm_feed_entries(post_ids: list[int]) -> None:
    """Render the feed entries of these posts, as every feed that lists them reads.

    Tag, series and site feeds share an entry: it is keyed by the post, its
    URL and its body.
    """
    posts = list(PostPage.objects.filter(pk__in=post_ids).for_feed())
    urls = [urljoin(root_url_of(p.get_site()) + "/", p.get_url(None)) for p in posts]
    PostPage.feed_entries(posts, None, urls)


def warm_image(image_id: int) -> None:
    """Make every rendition the templates show of the image ``image_id``."""
    image = get_image_model().objects.filter(pk=image_id).first()
    if image is not None:
        get_renditions_or_not_found(image, picture_specs(image))


@retried()
def warm_task(pages: list[int], images: list[int]) -> int:
    """Warm these pages and images (``warm``), as a task.

    What could not be warmed fails the task, after the rest is done: it is
    run again later, and listed in the admin if it keeps failing.
    """
    failures = []
    warmed = warm(pages, images, failures=failures)
    if failures:
        raise WarmingFailed("; ".join(failures))
    return warmed


class WarmingFailed(Exception):
    """Some of a task's pages or images could not be rendered."""


def enqueue(pages: Iterable[int] = (), images: Iterable[int] = ()) -> list[str]:
    """Queue the warming of these pages and images as bulk work; return the ids.

    A task per image (its renditions are the costly part) and one per
    ``PAGE_BATCH`` pages, so that workers share them.
    """
    bulk = warm_task.using(priority=BULK_PRIORITY)
    pages, images = sorted(set(pages)), sorted(set(images))
    results = [bulk.enqueue([], [image]) for image in images]
    results += [
        bulk.enqueue(pages[start : start + PAGE_BATCH], [])
        for start in range(0, len(pages), PAGE_BATCH)
    ]
    return [str(result.id) for result in results]


def noting() -> Noted | None:
    """Return what the bulk change under way notes, or None outside one."""
    return _collecting.get()


def _enqueue(pages: list[int] = (), images: list[int] = ()) -> None:
    noted = _collecting.get()
    if noted is not None:
        noted.pages.update(pages)
        # An image's renditions need nothing else the change writes: queued
        # now, the workers encode them while the change goes on. Queued in
        # the image's transaction, as the body checks are (blog/writing.py):
        # the database queue's worker finds the task once the image commits.
        fresh = set(images) - noted.images
        noted.images.update(fresh)
        if fresh:
            noted.queued += enqueue(images=fresh)
        return
    # After the commit: the worker must find the change, and a rolled back
    # change is not warmed.
    first = warm_task.using(priority=EDITOR_PRIORITY)
    transaction.on_commit(
        lambda: after_the_editor(first).enqueue(list(pages), list(images))
    )


def _on_publish(sender, instance, **kwargs):
    _enqueue(pages=[instance.pk])


def _on_image_saved(sender, instance, created=False, update_fields=None, **kwargs):
    # A new file, or a new focal point, makes new renditions; a title does not.
    fields = set(update_fields or ())
    if created or not fields or fields & {"file", "focal_point_x", "focal_point_y"}:
        _enqueue(images=[instance.pk])


def connect() -> None:
    """Warm on publish and on image save (from AppConfig.ready)."""
    from django.db.models.signals import post_save
    from wagtail.signals import page_published

    for model in (PostPage, SeriesPage):
        page_published.connect(_on_publish, sender=model, dispatch_uid="warming")
    post_save.connect(_on_image_saved, sender=get_image_model(), dispatch_uid="warming")


def warm_site(progress: Callable[[int, int, str], None] | None = None) -> int:
    """Warm every live page with a body and every image; return how many."""
    pages = Page.objects.live().type(PostPage, SeriesPage).values_list("pk", flat=True)
    images = get_image_model().objects.values_list("pk", flat=True)
    return warm(list(pages), list(images), progress)
