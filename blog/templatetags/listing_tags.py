"""The rows of a listing — post cards, archive lines — kept until it is purged."""

from django import template
from django.db.models import prefetch_related_objects
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from blog.models import PostTag
from pagecache.cache import remember_at
from rendering.cache import make_key

register = template.Library()

CARD_FIELDS = ("pk", "url_path", "title", "summary", "date", "updated")
ARCHIVE_FIELDS = ("pk", "url_path", "title", "date")


@register.simple_tag(takes_context=True)
def post_cards(context, posts, show_updated=False) -> SafeString:
    """Return the cards of ``posts``, one page of a listing, with their tags."""

    def render(posts):
        prefetch_related_objects(posts, PostTag.prefetch())
        return _render(context, "includes/post_card.html", posts, show_updated)

    return _kept(context, ["cards", show_updated], CARD_FIELDS, posts, render)


@register.simple_tag(takes_context=True)
def archive_lines(context, posts) -> SafeString:
    """Return the archive's line (date, linked title) for each of ``posts``."""

    def render(posts):
        return _render(context, "includes/archive_line.html", posts)

    return _kept(context, ["archive"], ARCHIVE_FIELDS, posts, render)


def _kept(context, name, fields, posts, render) -> SafeString:
    """Return ``render(posts)``, kept under the served path's page-cache tokens.

    Twenty cards or two hundred archive lines are that many template renders,
    the better part of a listing's time. Whatever purges the listing (a post
    published, moved or retagged, a tag renamed) renders them again, and so
    does a change to the ``fields`` they show (a row saved without publishing).
    """
    posts = list(posts)
    request = context.get("request")
    if not posts or request is None:
        return render(posts)
    shown = [[str(getattr(post, field)) for field in fields] for post in posts]
    key = make_key("rows", [name, shown])
    # Rendered by our own templates, which escape what is not markup.
    return mark_safe(remember_at([request.path], key, lambda: render(posts)))  # noqa: S308


def _render(context, template_name, posts, show_updated=False) -> SafeString:
    row = get_template(template_name)
    request = context.get("request")
    html = "".join(
        row.render({"post": post, "show_updated": show_updated}, request)
        for post in posts
    )
    return mark_safe(html)  # noqa: S308 (our templates escape)
