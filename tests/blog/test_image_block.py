"""The image block: a responsive picture, an SVG as itself, a remote image, a width.

An uploaded image is drawn as AVIF and WebP sources over the original; an
editor may give it a display width, which caps both how wide it is drawn and
which renditions are fetched.
"""

import pytest
import wagtail_factories
from django.core.files.base import ContentFile
from pytest_django.asserts import assertHTMLEqual
from wagtail.blocks import StructBlockValidationError

from blog.blocks import ImageBlock
from rendering import render_inline_text
from tests.blog.blocks import (
    no_oembed_requests,  # noqa: F401 (an autouse fixture)
    soup,
)


@pytest.mark.django_db
def test_image_block_renders_responsive_picture_with_title_as_alt():
    image = wagtail_factories.ImageFactory(
        title="Roofline 模型", file__width=1600, file__height=900
    )
    block = ImageBlock()
    value = block.to_python(
        {"image": image.pk, "alt": "", "caption": "图 1：$I$ 与性能"}
    )

    html = block.render(value)

    figure = soup(html).select_one("figure.block-image")
    picture = figure.picture
    types = [source["type"] for source in picture.find_all("source")]
    assert types == ["image/avif", "image/webp"]
    for source in picture.find_all("source"):
        assert [w.split()[-1] for w in source["srcset"].split(",")] == [
            "480w",
            "800w",
            "1200w",
            "1600w",
        ]
    img = picture.img
    assert img["alt"] == "Roofline 模型"
    assert img["loading"] == "lazy"
    # Browsers without AVIF or WebP, and feed readers, get the original; no
    # third format is made at every width. Its size reserves a 16:9 box.
    assert img["src"] == image.file.url
    assert not img.has_attr("srcset") and not img.has_attr("sizes")
    assert (img["width"], img["height"]) == ("1600", "900")
    assertHTMLEqual(
        str(figure.figcaption),
        f"<figcaption>{render_inline_text('图 1：$I$ 与性能')}</figcaption>",
    )


@pytest.mark.django_db
def test_image_block_prefers_the_authors_alt_text():
    image = wagtail_factories.ImageFactory(title="IMG_0042")
    block = ImageBlock()
    value = block.to_python({"image": image.pk, "alt": "共享内存布局", "caption": ""})

    html = block.render(value)

    assert soup(html).img["alt"] == "共享内存布局"
    assert soup(html).figcaption is None


def test_image_block_shows_a_remote_image_from_its_url():
    block = ImageBlock()
    value = block.to_python(
        {"image": None, "url": "https://example.com/sm.png", "alt": "SM", "caption": ""}
    )

    html = block.render(value)

    assertHTMLEqual(
        html,
        '<figure class="block-image"><img src="https://example.com/sm.png" alt="SM"'
        ' loading="lazy" decoding="async" referrerpolicy="no-referrer"></figure>',
    )


@pytest.mark.parametrize(
    ("url", "field"), [("", "image"), ("ftp://example.com/a.png", "url")]
)
def test_image_block_needs_an_image_or_a_web_url(url, field):
    block = ImageBlock()
    with pytest.raises(StructBlockValidationError) as raised:
        block.clean(
            block.to_python({"image": None, "url": url, "alt": "", "caption": ""})
        )
    assert set(raised.value.block_errors) == {field}


@pytest.mark.django_db
def test_a_small_image_is_not_stretched_past_its_own_width():
    image = wagtail_factories.ImageFactory(file__width=120, file__height=150)
    block = ImageBlock()

    html = block.render(block.to_python({"image": image.pk, "alt": "", "caption": ""}))

    # With `sizes` the column's width, a 120w source would be drawn 48rem wide.
    sources = soup(html).find_all("source")
    assert sources
    for source in sources:
        assert source["sizes"] == "min(120px, 100vw)"


@pytest.mark.django_db
def test_an_svg_image_is_the_file_itself_in_an_img():
    image = wagtail_factories.ImageFactory(
        file=ContentFile(
            b'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"/>',
            name="drawing.svg",
        ),
        width=80,
        height=40,
    )
    block = ImageBlock()

    html = block.render(
        block.to_python({"image": image.pk, "alt": "图", "caption": ""})
    )

    figure = soup(html).select_one("figure.block-image")
    assert figure.picture is None and figure.source is None
    assert figure.img["src"] == image.file.url and image.file.url.endswith(".svg")
    assert (figure.img["width"], figure.img["height"]) == ("80", "40")
    assert not image.renditions.exists()


@pytest.mark.django_db
def test_an_image_with_a_display_width_is_drawn_and_fetched_that_wide():
    image = wagtail_factories.ImageFactory(file__width=1600, file__height=900)
    block = ImageBlock()

    html = block.render(
        block.to_python({"image": image.pk, "alt": "", "caption": "", "width": 300})
    )

    picture = soup(html).picture
    sources = picture.find_all("source")
    assert sources
    for source in sources:
        assert source["sizes"] == "min(300px, 100vw)"
    # 300 wide, the height keeping 16:9; the stylesheet caps it at the column.
    assert (picture.img["width"], picture.img["height"]) == ("300", "169")
    assert picture.img["class"] == ["sized"]


@pytest.mark.django_db
def test_a_display_width_never_enlarges_a_smaller_image():
    image = wagtail_factories.ImageFactory(file__width=120, file__height=150)
    block = ImageBlock()

    html = block.render(
        block.to_python({"image": image.pk, "alt": "", "caption": "", "width": 300})
    )

    assert soup(html).source["sizes"] == "min(120px, 100vw)"
    assert (soup(html).img["width"], soup(html).img["height"]) == ("120", "150")


@pytest.mark.django_db
def test_an_svg_takes_its_display_width():
    image = wagtail_factories.ImageFactory(
        file=ContentFile(
            b'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"/>',
            name="drawing.svg",
        ),
        width=80,
        height=40,
    )
    block = ImageBlock()

    html = block.render(
        block.to_python({"image": image.pk, "alt": "", "caption": "", "width": 300})
    )

    assert (soup(html).img["width"], soup(html).img["height"]) == ("300", "150")


def test_a_remote_image_takes_its_display_width():
    block = ImageBlock()
    value = block.to_python(
        {"image": None, "url": "https://example.com/sm.png", "alt": "SM", "width": 300}
    )

    img = soup(block.render(value)).img

    assert (img["width"], img["class"]) == ("300", ["sized"])


@pytest.mark.parametrize("width", [15, 4001])
def test_a_display_width_is_between_16_and_4000_pixels(width):
    block = ImageBlock()
    value = block.to_python(
        {"image": None, "url": "https://example.com/a.png", "width": width}
    )
    with pytest.raises(StructBlockValidationError) as raised:
        block.clean(value)
    assert set(raised.value.block_errors) == {"width"}
