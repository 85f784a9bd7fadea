"""A `<picture>` whose srcset never lists one width twice.

Wagtail's `{% picture %}` with `width-{480,800,1200,1600}` asks a 1174-pixel image
for 1200 and 1600 and gets 1174 twice: an invalid srcset. This tag offers only the
widths below the original, then the original itself.
"""

from django import template
from wagtail.images.models import Picture
from wagtail.images.shortcuts import get_renditions_or_not_found

register = template.Library()

WIDTHS = (480, 800, 1200, 1600)
FORMATS = ("avif", "webp", "png")


def picture_widths(original: int, widths: tuple[int, ...] = WIDTHS) -> list[int]:
    """Return the distinct widths to offer for an image ``original`` pixels wide."""
    below = [width for width in widths if width < original]
    return below + ([original] if original <= widths[-1] else [])


@register.simple_tag
def responsive_picture(image, **attrs):
    """Render ``image`` as AVIF, WebP and PNG sources; attrs go on the `<img>`."""
    if not image:
        return ""
    specs = [
        f"format-{fmt}|width-{width}"
        for fmt in FORMATS
        for width in picture_widths(image.width or WIDTHS[0])
    ]
    renditions = get_renditions_or_not_found(image, specs)
    return Picture(renditions, attrs).__html__()
