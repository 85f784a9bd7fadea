from django import template

from blog.seo import page_meta as build_page_meta
from blog.site_urls import absolute_url

register = template.Library()


@register.simple_tag(takes_context=True)
def page_meta(context):
    """Return the page's metadata (see blog.seo.page_meta)."""
    return build_page_meta(context)


@register.simple_tag(takes_context=True)
def site_url(context, path):
    """Return ``path`` on the site's root URL, not the request's (blog/site_urls.py)."""
    return absolute_url(context.get("request"), path)
