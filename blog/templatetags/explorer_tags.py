"""The sidebar beside every page: the explorer and 最近更新 (``blog.explorer``)."""

from django import template

from blog.explorer import explorer

register = template.Library()


@register.inclusion_tag("includes/explorer.html", takes_context=True)
def site_explorer(context):
    """Render the explorer of the page in ``context`` (its ``page``, if any)."""
    request = context.get("request")
    found = explorer(request, context.get("page")) if request is not None else None
    return {"explorer": found}
