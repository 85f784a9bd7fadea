from django import template

from blog.seo import page_meta as build_page_meta

register = template.Library()


@register.simple_tag(takes_context=True)
def page_meta(context):
    """Return the page's metadata (see blog.seo.page_meta)."""
    return build_page_meta(context)
