"""SVG drawings in the media library: what counts as one, and its size.

A drawing may carry scripts and Wagtail does not sanitise it; pages show it
only as ``<img>`` (where none runs) and never rasterise it
(``templatetags/picture_tags.py``). This checks its content, as uploads and
the importer check every image's.
"""

import io
from xml.etree.ElementTree import ParseError

from willow.image import Image as WillowImage
from willow.image import UnrecognisedImageFormatError
from willow.svg import SvgImage, WillowSvgException

SVG_ROOT = "{http://www.w3.org/2000/svg}svg"


def svg_size(data: bytes, name: str) -> tuple[int, int]:
    """Return the pixel size of an SVG drawing, as Wagtail reads it (Willow).

    Raise ValueError if ``data`` is not well-formed XML whose root is ``<svg>``
    in the SVG namespace (a browser shows nothing else as an SVG image).
    """
    try:
        picture = WillowImage.open(io.BytesIO(data))
        if picture.dom.getroot().tag != SVG_ROOT:
            raise ValueError(f"{name} is not an SVG drawing (no <svg> root element)")
        width, height = SvgImage.open(picture).get_size()
    except (
        ParseError,
        UnrecognisedImageFormatError,
        WillowSvgException,
        AttributeError,
    ) as error:
        raise ValueError(f"{name} is not a well-formed SVG drawing") from error
    return max(round(width), 1), max(round(height), 1)
