"""A post's breadcrumbs and its series' previous/next."""

from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from wagtail.models import Page, PageViewRestriction

from blog.models.base import LINK_COLUMNS, SeriesOrdering, site_has_view_restrictions
from pagecache.cache import remember


def navigation(post):
    """Return the breadcrumbs and the series' previous/next, kept until purged.

    What changes them (an ancestor renamed, a post of the series published,
    moved or unpublished) purges this page too (``pagecache.purge``).
    """
    return remember(post.url_path, "navigation", lambda: find_navigation(post))


def find_navigation(post):
    """Return the breadcrumbs and the series' previous/next, from one query.

    One query fetches the live ancestors below the home page (the
    breadcrumbs) and, when the parent is a series read in explorer order,
    the live posts beside this one; a second, on a site with private
    pages, the restrictions that hide some of them.
    Sections (ordered newest first) get no previous/next: their posts are
    not meant to be read in sequence.
    """
    steplen = post.steplen
    parent_path = post.path[:-steplen]
    ancestor_paths = [
        post.path[:end] for end in range(3 * steplen, len(post.path), steplen)
    ]
    in_series = models.Exists(
        Page.objects.filter(
            path=parent_path, seriespage__ordering=SeriesOrdering.EXPLORER
        )
    )
    siblings = Q(
        in_series,
        path__startswith=parent_path,
        depth=post.depth,
        content_type=ContentType.objects.get_for_model(type(post)),
    )
    rows = list(
        Page.objects.live()
        .filter(Q(path__in=ancestor_paths) | siblings | Q(pk=post.pk))
        .only(*LINK_COLUMNS)
        .order_by("path")
    )
    crumbs = [row for row in rows if row.path in ancestor_paths]
    posts = [row for row in rows if row.depth == post.depth]
    if site_has_view_restrictions():
        # A neighbour behind a restriction this post is not behind is left
        # out: its title is not this post's readers' to see.
        private = [
            path
            for path in PageViewRestriction.objects.values_list("page__path", flat=True)
            if not post.path.startswith(path)
        ]
        posts = [row for row in posts if not row.path.startswith(tuple(private))]
    parent = crumbs[-1] if crumbs and crumbs[-1].path == parent_path else None
    nav = {"breadcrumbs": crumbs, "series": None}
    # A draft seen in preview is not among the live posts: no position.
    position = next((i for i, row in enumerate(posts) if row.pk == post.pk), None)
    if parent is not None and position is not None and len(posts) > 1:
        nav["series"] = {
            "page": parent,
            "position": position + 1,
            "count": len(posts),
            "previous": posts[position - 1] if position > 0 else None,
            "next": posts[position + 1] if position + 1 < len(posts) else None,
        }
    return nav
