"""A `<picture>` whose srcset never lists one width twice, and never waits.

Wagtail's `{% picture %}` with `width-{480,800,1200,1600}` asks a 1174-pixel image
for 1200 and 1600 and gets 1174 twice: an invalid srcset. This tag offers only the
widths below the original, then the original itself.

The renditions are AVIF and WebP, at each width: nearly every browser
reads one of them, and the `<img>` every other browser (and a feed reader)
shows is the original file, so no third copy is encoded at every width.
Why this set, and what each format costs: docs/performance.md
(`make bench-renditions`).

The renditions are made by a task worker when the image is saved
(``blog/warming.py``). A reader's request (inside a render budget,
``rendering.budget``) only looks them up: until every one exists it shows
the original file, and the page is not cached, rather than have the reader
wait while they are encoded.
"""

from django import template
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from wagtail.images.models import Filter
from wagtail.images.shortcuts import get_renditions_or_not_found

from rendering import budget

register = template.Library()

WIDTHS = (480, 800, 1200, 1600)
# The width of the body's column (48rem), which the templates' `sizes` name.
COLUMN = 768
# The order of the <source> elements: the browser takes the first it reads.
FORMATS = (("avif", "image/avif"), ("webp", "image/webp"))


def picture_widths(original: int, widths: tuple[int, ...] = WIDTHS) -> list[int]:
    """Return the distinct widths to offer for an image ``original`` pixels wide."""
    below = [width for width in widths if width < original]
    return below + ([original] if original <= widths[-1] else [])


def picture_specs(image) -> list[str]:
    """Return the rendition specs a page shows ``image`` with.

    None for an SVG: it is shown as it is, at any width, and never rasterised.
    """
    if image.is_svg():
        return []
    return [
        f"format-{fmt}|width-{width}"
        for fmt, _ in FORMATS
        for width in picture_widths(image.width or WIDTHS[0])
    ]


def _size(image, display_width: int | None) -> dict:
    """Return the `<img>`'s width and height: its own, or scaled to ``display_width``.

    A raster image is never drawn wider than it is (upscaled, it blurs); an SVG
    takes the width asked for. The height keeps the aspect ratio.
    """
    if not display_width:
        return {"width": image.width, "height": image.height}
    width = display_width
    if image.width and not image.is_svg():
        width = min(width, image.width)
    height = round(image.height * width / image.width) if image.width else None
    # "sized": the stylesheet keeps the width attribute (others are width: auto).
    return {"width": width, "height": height, "class": "sized"}


def _original(image, attrs, display_width: int | None = None) -> str:
    attrs = {k: v for k, v in attrs.items() if k != "sizes"}
    size = _size(image, display_width)
    return format_html("<img{}>", flatatt({"src": image.file.url, **size, **attrs}))


def _picture(image, renditions: dict, attrs, display_width: int | None) -> str:
    """AVIF and WebP sources at every width; the original as the `<img>`."""
    widths = picture_widths(image.width or WIDTHS[0])
    sizes = attrs.get("sizes")
    if display_width:
        # Drawn at most display_width wide: a rendition for that width will do.
        sizes = f"min({_size(image, display_width)['width']}px, 100vw)"
    elif image.width and image.width < COLUMN:
        # Drawn at its own width: with the column's, a browser would stretch
        # the one source offered (a 120 px photo beside a heading) to fill it.
        sizes = f"min({image.width}px, 100vw)"

    def srcset(fmt: str) -> str:
        chosen = (renditions[f"format-{fmt}|width-{w}"] for w in widths)
        return ", ".join(f"{r.url} {r.width}w" for r in chosen)

    sources = format_html_join(
        "",
        "<source{}>",
        (
            (flatatt({"srcset": srcset(fmt), "sizes": sizes, "type": mime}),)
            for fmt, mime in FORMATS
        ),
    )
    img = _original(image, attrs, display_width)
    return format_html("<picture>{}{}</picture>", sources, img)


@register.simple_tag
def responsive_picture(image, display_width=None, **attrs):
    """Render ``image`` as AVIF and WebP sources over its original; attrs go on the `<img>`.

    ``display_width`` (CSS pixels) draws it at most that wide, never wider than
    the column, and has the browser fetch a rendition for that width.
    """
    if not image:
        return ""
    specs = picture_specs(image)
    if not specs:  # an SVG: an <img>, where its scripts never run
        return _original(image, attrs, display_width)
    if not budget.limited():
        renditions = get_renditions_or_not_found(image, specs)
        return _picture(image, renditions, attrs, display_width)
    filters = [Filter(spec) for spec in specs]
    found = image.find_existing_renditions(*filters)
    if len(found) < len(filters):
        budget.defer()
        return _original(image, attrs, display_width)
    renditions = {f.spec: found[f] for f in filters}
    return _picture(image, renditions, attrs, display_width)
