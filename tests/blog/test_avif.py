"""AVIF renditions are encoded at IMAGE_AVIF_SPEED (blog/avif.py)."""

import io
import random

import pytest
from django.core.files.images import ImageFile
from PIL import Image as PILImage
from wagtail.images.models import Image

SPEC = "format-avif|width-160"


def figure() -> bytes:
    """A PNG with enough detail that libavif's speed changes what it writes."""
    picture = PILImage.new("RGB", (320, 200), "white")
    rng = random.Random(7)
    picture.putdata(
        [(rng.randrange(256), rng.randrange(256), 200) for _ in range(320 * 200)]
    )
    buffer = io.BytesIO()
    picture.save(buffer, "PNG")
    return buffer.getvalue()


def avif_rendition(settings, speed: int) -> bytes:
    settings.IMAGE_AVIF_SPEED = speed
    image = Image.objects.create(
        title="figure", file=ImageFile(io.BytesIO(figure()), name="figure.png")
    )
    rendition = image.get_rendition(SPEC)
    with rendition.file.open("rb") as f:
        data = f.read()
    decoded = PILImage.open(io.BytesIO(data))
    assert (decoded.format, decoded.size) == ("AVIF", (160, 100))
    return data


@pytest.mark.django_db
def test_a_rendition_is_encoded_at_the_configured_speed(settings):
    # Pillow writes the same bytes for the same pixels and options: two
    # speeds giving two files shows the setting reached libavif.
    assert avif_rendition(settings, 8) == avif_rendition(settings, 8)
    assert avif_rendition(settings, 8) != avif_rendition(settings, 6)


def test_a_save_that_names_a_speed_keeps_it(settings):
    picture = PILImage.open(io.BytesIO(figure()))

    def avif(**options) -> bytes:
        buffer = io.BytesIO()
        picture.save(buffer, "AVIF", quality=80, **options)
        return buffer.getvalue()

    settings.IMAGE_AVIF_SPEED = 9
    named = avif(speed=6)
    settings.IMAGE_AVIF_SPEED = 6
    assert avif() == named
    settings.IMAGE_AVIF_SPEED = 9
    assert avif() != named
