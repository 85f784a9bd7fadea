"""A `<picture>` whose srcset never lists one width twice, and never waits.

Wagtail's `{% picture %}` with `width-{480,800,1200,1600}` asks a 1174-pixel image
for 1200 and 1600 and gets 1174 twice: an invalid srcset. This tag offers only the
widths below the original, then the original itself.

The renditions are made when the image is saved (``blog/warming.py``). A
reader's request (inside a render budget, ``rendering.budget``) only looks
them up: until every one exists it shows the original file, and the page is
not cached, rather than have the reader wait while they are encoded.
"""

from django import template
from django.forms.utils import flatatt
from django.utils.html import format_html
from wagtail.images.models import Filter, Picture
from wagtail.images.shortcuts import get_renditions_or_not_found

from rendering import budget

register = template.Library()

WIDTHS = (480, 800, 1200, 1600)
FORMATS = ("avif", "webp", "png")


def picture_widths(original: int, widths: tuple[int, ...] = WIDTHS) -> list[int]:
    """Return the distinct widths to offer for an image ``original`` pixels wide."""
    below = [width for width in widths if width < original]
    return below + ([original] if original <= widths[-1] else [])


def picture_specs(image) -> list[str]:
    """Return the rendition specs a page shows ``image`` with."""
    return [
        f"format-{fmt}|width-{width}"
        for fmt in FORMATS
        for width in picture_widths(image.width or WIDTHS[0])
    ]


@register.simple_tag
def responsive_picture(image, **attrs):
    """Render ``image`` as AVIF, WebP and PNG sources; attrs go on the `<img>`."""
    if not image:
        return ""
    specs = picture_specs(image)
    if not budget.limited():
        return Picture(get_renditions_or_not_found(image, specs), attrs).__html__()
    filters = [Filter(spec) for spec in specs]
    found = image.find_existing_renditions(*filters)
    if len(found) < len(filters):
        budget.defer()
        size = {"width": image.width, "height": image.height}
        return format_html("<img{}>", flatatt({"src": image.file.url, **size, **attrs}))
    return Picture({f.spec: found[f] for f in filters}, attrs).__html__()
