"""The posts linking to a post and those it links to: backlinks and its graph."""

from django.db import models
from django.db.models import OuterRef, Q
from django.db.models.functions import Length, Substr
from wagtail.models import PageViewRestriction

from blog.graph import layout as graph_layout
from blog.models.base import LINK_COLUMNS


def backlinks(post):
    """Return the live, public posts whose content links to this one.

    Wagtail's reference index records every page link on save; one query
    joins it.
    """
    return public_posts(post, Q(pk__in=post.referrer_ids()))


def neighbours(post) -> dict:
    """Return the live, public posts linking ``in`` to this one and ``out`` of it.

    Both from one query of the reference index; a post may be in both.
    """
    incoming = Q(pk__in=post.referrer_ids())
    outgoing = Q(pk__in=post.linked_page_ids())
    posts = public_posts(post, incoming | outgoing).annotate(
        links_here=models.ExpressionWrapper(
            incoming, output_field=models.BooleanField()
        ),
        linked_from_here=models.ExpressionWrapper(
            outgoing, output_field=models.BooleanField()
        ),
    )
    found = {"in": [], "out": []}
    for found_post in posts:
        if found_post.links_here:
            found["in"].append(found_post)
        if found_post.linked_from_here:
            found["out"].append(found_post)
    return found


def public_posts(post, condition):
    """Return the live posts meeting ``condition`` but this one, newest first.

    Posts under a view restriction are excluded in the same query
    (Wagtail's `public()` would cost a second one).
    """
    restricted = PageViewRestriction.objects.filter(
        page__path=Substr(OuterRef("path"), 1, Length("page__path"))
    )
    return (
        type(post)
        .objects.live()
        .filter(condition)
        .exclude(pk=post.pk)
        .exclude(models.Exists(restricted))
        .only(*LINK_COLUMNS, "date")
        .order_by("-date", "-pk")
    )


def graph(post, linking, nav) -> dict | None:
    """Return the layout of the post's neighbourhood (``blog.graph``), or None."""
    crumbs = nav["breadcrumbs"]
    parent_path = post.path[: -post.steplen]
    parent = crumbs[-1] if crumbs and crumbs[-1].path == parent_path else None
    series = nav["series"] or {}
    return graph_layout(
        post,
        parent=parent,
        previous=series.get("previous"),
        next=series.get("next"),
        outgoing=linking["out"],
        incoming=linking["in"],
    )
