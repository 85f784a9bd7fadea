"""The sidebar beside every page: where its explorer fragment is (``blog.explorer``)."""

from django import template
from django.forms.utils import flatatt
from django.utils.html import format_html
from wagtail.models import Site

from blog.models import PostPage, SeriesPage
from blog.models.changes import FRAGMENT_PREFIX

register = template.Library()


@register.simple_tag(takes_context=True)
def explorer_slot(context) -> str:
    """Return the element explorer.js fills with the page's explorer fragment.

    A post's title rides along: a post past the first of its folder's posts
    the fragment lists is added to it, marked.
    """
    page = context.get("page")
    attrs = {"class": "explorer-slot", "data-explorer": explorer_fragment_url(context)}
    if is_a(page, PostPage):
        attrs["data-post-title"] = page.title
    return format_html("<div{}></div>", flatatt(attrs))


def explorer_fragment_url(context) -> str:
    """Return the path of the explorer fragment the page in ``context`` loads.

    A series loads its own, a post its folder's (worked out from its URL: no
    query), every other page home's.
    """
    request = context.get("request")
    page = context.get("page")
    site = Site.find_for_request(request) if request is not None else None
    url_path = getattr(page, "url_path", "")
    if site is None or not url_path.startswith(site.root_page.url_path):
        return FRAGMENT_PREFIX + "/"
    relative = url_path[len(site.root_page.url_path) - 1 :]
    if is_a(page, SeriesPage):
        return FRAGMENT_PREFIX + relative
    if is_a(page, PostPage):
        return FRAGMENT_PREFIX + relative[: relative.rstrip("/").rfind("/") + 1]
    return FRAGMENT_PREFIX + "/"


def is_a(page, model) -> bool:
    """Whether ``page`` (specific or not, or None) is of ``model``'s type."""
    specific_class = getattr(page, "specific_class", None)
    return specific_class is not None and issubclass(specific_class, model)
