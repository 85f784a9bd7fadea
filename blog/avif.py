"""AVIF renditions encoded at the speed ``IMAGE_AVIF_SPEED`` sets (an adapter).

Wagtail saves an AVIF rendition through Willow, which calls Pillow's AVIF
writer without a speed: libavif's default, 6 on a scale from 0 (slowest)
to 10. A faster speed trades a little compression for much less of the
task workers' time on an imported vault's figures (the trade, measured:
docs/performance.md, "Which renditions are worth their cost"). Neither Wagtail
nor Willow takes the speed, so the AVIF writer Pillow registers is wrapped
(``Image.register_save``) to default it; a save that names a speed keeps it.

What this relies on of Pillow (``AvifImagePlugin._save`` reading the
speed from the encoder options) is pinned by ``tests/blog/test_avif.py``.
"""

from django.conf import settings
from PIL import AvifImagePlugin, Image

FORMAT = AvifImagePlugin.AvifImageFile.format


def _save(image, fp, filename):
    image.encoderinfo.setdefault("speed", settings.IMAGE_AVIF_SPEED)
    AvifImagePlugin._save(image, fp, filename)


def register() -> None:
    """Make every AVIF Pillow writes, so every AVIF rendition, use the speed."""
    Image.register_save(FORMAT, _save)
