"""Uploads: raster images only, within a size limit; no SVG; PDF documents only."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image as PILImage
from wagtail.documents.models import Document
from wagtail.images.models import Image

SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">'
    b"<script>alert(document.cookie)</script></svg>"
)


def png(size=(40, 30)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", size, "#3b82f6").save(buffer, "PNG")
    return buffer.getvalue()


def upload_image(admin_client, name, content, content_type="image/png"):
    return admin_client.post(
        reverse("wagtailimages:add"),
        {"title": name, "file": SimpleUploadedFile(name, content, content_type)},
    )


@pytest.mark.django_db
def test_a_png_is_accepted(admin_client):
    response = upload_image(admin_client, "bank.png", png())
    assert response.status_code == 302
    assert Image.objects.get().title == "bank.png"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "content", "content_type"),
    [
        ("figure.svg", SVG, "image/svg+xml"),
        ("page.html", b"<script>alert(1)</script>", "text/html"),
        ("fake.png", SVG, "image/png"),  # an SVG under a PNG's name
    ],
)
def test_what_is_not_a_raster_image_is_refused(
    admin_client, name, content, content_type
):
    response = upload_image(admin_client, name, content, content_type)
    assert response.status_code == 200  # the form again, with its error
    assert "file" in response.context["form"].errors
    assert not Image.objects.exists()


@pytest.mark.django_db
def test_an_image_over_the_size_limit_is_refused(admin_client, settings):
    settings.WAGTAILIMAGES_MAX_UPLOAD_SIZE = 1000
    content = png((400, 400))
    assert len(content) > 1000
    response = upload_image(admin_client, "big.png", content)
    assert "file" in response.context["form"].errors
    assert not Image.objects.exists()


@pytest.mark.django_db
def test_documents_are_pdf_only(admin_client):
    response = admin_client.post(
        reverse("wagtaildocs:add"),
        {
            "title": "page",
            "file": SimpleUploadedFile("page.html", b"<script>x</script>", "text/html"),
        },
    )
    assert response.status_code == 200
    assert "file" in response.context["form"].errors
    assert not Document.objects.exists()
