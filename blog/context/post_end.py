"""A post's end: the previous and next posts, and the related ones.

Also the other way round, for purges: the posts whose end shows a post
(``section_window``, read by ``blog.models.changes``).
"""

import itertools

from django.db.models import Count, Q
from wagtail.models import Page

from blog.models.base import LINK_COLUMNS, SeriesOrdering

# How many related posts a post's end lists, and how many of its section's
# nearest posts on each side it reads for them and for previous/next.
RELATED_COUNT = 4
SECTION_WINDOW = RELATED_COUNT + 1


def siblings(post, posts=None):
    """Return ``posts`` (the public live ones) beside this one in its parent."""
    posts = type(post).objects.visible() if posts is None else posts
    parent_path = post.path[: -post.steplen]
    return posts.filter(path__startswith=parent_path, depth=post.depth).exclude(
        pk=post.pk
    )


def in_reading_order(post) -> bool:
    """Return whether this post's parent is a series read in explorer order."""
    return Page.objects.filter(
        path=post.path[: -post.steplen],
        seriespage__ordering=SeriesOrdering.EXPLORER,
    ).exists()


def _window(post, siblings, reading_order: bool, size: int):
    """Return a filter of the ``size`` siblings nearest on each side, and a sort key.

    In explorer order in a series, by date elsewhere (before is older).
    """
    if reading_order:
        before = siblings.filter(path__lt=post.path).order_by("-path")
        after = siblings.filter(path__gt=post.path).order_by("path")

        def key(page):
            return page.path
    else:
        before = siblings.filter(
            Q(date__lt=post.date) | Q(date=post.date, pk__lt=post.pk)
        ).order_by("-date", "-pk")
        after = siblings.filter(
            Q(date__gt=post.date) | Q(date=post.date, pk__gt=post.pk)
        ).order_by("date", "pk")

        def key(page):
            return (page.date, page.pk)

    nearest = Q(pk__in=before.values("pk")[:size]) | Q(pk__in=after.values("pk")[:size])
    return nearest, key


def _split(post, rows, key, size: int):
    """Return the ``size`` siblings among ``rows`` nearest before and after."""
    parent_path = post.path[: -post.steplen]
    mine = key(post)
    beside = sorted(
        (
            row
            for row in rows
            if row.depth == post.depth and row.path.startswith(parent_path)
        ),
        key=key,
    )
    before = [row for row in reversed(beside) if key(row) < mine]
    after = [row for row in beside if key(row) > mine]
    return before[:size], after[:size]


def section_window(post, size: int = SECTION_WINDOW):
    """Return the ``size`` posts of the parent nearest before and after this one.

    Nearest first on each side; the first of each is the previous and the
    next post. Whether this post is live does not matter, so after an
    unpublish the window is still the posts whose end showed it.
    """
    # Private posts too: purging their paths does no harm, and spares
    # asking which posts are private.
    beside = siblings(post, type(post).objects.live())
    nearest, key = _window(post, beside, in_reading_order(post), size)
    rows = beside.filter(nearest).only(*LINK_COLUMNS, "date")
    return _split(post, rows, key, size)


def find_post_end(post, nav):
    """Return the previous and next posts and the related ones, in one query.

    In a series, previous/next are the series' (``find_navigation``);
    elsewhere, the section's posts beside this one by date. Related posts
    share most tags with this one (then newest first), and are filled up
    with the section's posts nearest to it; previous and next are not
    repeated among them.
    """
    if post.pk is None or post.date is None:
        # The preview of a post not saved yet, or not dated: nothing to
        # place it among.
        return {"previous": None, "next": None, "related": []}
    series = nav["series"]
    posts = type(post).objects.visible()
    # A post alone in its series has no neighbours in any order.
    nearest, key = _window(
        post, siblings(post, posts), series is not None, SECTION_WINDOW
    )
    # The post's tag through-model (PostTag), reached from the post.
    tags = (
        type(post)
        .tags.through.objects.filter(content_object_id=post.pk)
        .values("tag_id")
    )
    # Previous and next may be among the best ranked: two more to spare.
    ranked = (
        posts.filter(tagged_items__tag_id__in=tags)
        .exclude(pk=post.pk)
        .annotate(shared=Count("tagged_items"))
        .order_by("-shared", "-date", "-pk")
        .values("pk")[: RELATED_COUNT + 2]
    )
    rows = list(
        posts.filter(nearest | Q(pk__in=ranked))
        .annotate(shared=Count("tagged_items", filter=Q(tagged_items__tag_id__in=tags)))
        .only(*LINK_COLUMNS, "date")
    )
    before, after = _split(post, rows, key, SECTION_WINDOW)
    if series is not None:
        previous, following = series["previous"], series["next"]
    else:
        previous = before[0] if before else None
        following = after[0] if after else None
    taken = {page.pk for page in (previous, following) if page is not None}
    related = sorted(
        (row for row in rows if row.shared and row.pk not in taken),
        key=lambda row: (-row.shared, -row.date.toordinal(), -row.pk),
    )[:RELATED_COUNT]
    taken |= {row.pk for row in related}
    # The section's posts nearest first, alternating sides.
    related += [
        page
        for pair in itertools.zip_longest(before, after)
        for page in pair
        if page is not None and page.pk not in taken
    ][: RELATED_COUNT - len(related)]
    return {"previous": previous, "next": following, "related": related}
