"""Uploads: raster images and SVG drawings, within a size limit; PDF documents
only, checked by content and served as attachments."""

import io
import json

import pytest
from django.core.files.base import ContentFile
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
def test_an_svg_is_accepted_and_never_rasterised(admin_client):
    response = upload_image(admin_client, "figure.svg", SVG, "image/svg+xml")
    assert response.status_code == 302
    image = Image.objects.get()
    assert image.is_svg()
    # Its admin thumbnail is an SVG too: no raster copy of a drawing is made.
    listing = admin_client.get(reverse("wagtailimages:index")).content.decode()
    assert image.renditions.get().file.name.endswith(".svg")
    assert image.renditions.get().url in listing


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "content", "content_type"),
    [
        ("page.html", b"<script>alert(1)</script>", "text/html"),
        ("fake.png", SVG, "image/png"),  # an SVG under a PNG's name
        ("fake.svg", b"<html><script>alert(1)</script></html>", "image/svg+xml"),
    ],
)
def test_what_is_not_an_image_is_refused(admin_client, name, content, content_type):
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


def pdf() -> bytes:
    """Return a one-page PDF, cross-reference table and all."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


HTML = b"<!doctype html><script>alert(document.cookie)</script>"
NOT_A_PDF = "「x.pdf」的内容不是 PDF，只能上传 PDF 文档。"


def upload_document(client, way, name, content):
    """Upload a file as an editor does, ``way`` being one of the admin's three
    forms; return what the editor is shown: the page, or the JSON's text."""
    file = SimpleUploadedFile(name, content, "application/pdf")
    if way == "add":
        response = client.post(
            reverse("wagtaildocs:add"), {"title": name, "file": file}
        )
        return response, response.content.decode()
    if way == "multiple":
        response = client.post(reverse("wagtaildocs:add_multiple"), {"files[]": file})
        return response, response.json().get("error_message", "")
    response = client.post(
        reverse("wagtaildocs_chooser:create"),
        {"document-chooser-upload-title": name, "document-chooser-upload-file": file},
    )
    return response, json.loads(response.content).get("htmlFragment", "")


WAYS = ["add", "multiple", "chooser"]


@pytest.mark.django_db
@pytest.mark.parametrize("way", WAYS)
def test_html_named_pdf_is_refused_with_a_message(admin_client, way):
    response, shown = upload_document(admin_client, way, "x.pdf", HTML)

    assert response.status_code == 200
    assert NOT_A_PDF in shown
    # The one reason, not also a complaint about an empty extension.
    assert "扩展" not in shown
    assert not Document.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("way", WAYS)
def test_a_pdf_is_accepted(admin_client, way):
    response, shown = upload_document(admin_client, way, "paper.pdf", pdf())

    assert response.status_code in (200, 302)
    assert NOT_A_PDF.removeprefix("「x.pdf」") not in shown
    document = Document.objects.get()
    assert document.file.read() == pdf()


@pytest.fixture
def disk(settings, tmp_path):
    """Keep media on disk, as a single machine does (Wagtail serves it by sendfile).

    Tests keep it in memory, which Wagtail's document view cannot read; object
    storage is tested in test_object_storage.py.
    """
    settings.MEDIA_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    }


def assert_downloaded(response, content):
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == content


@pytest.mark.django_db
def test_an_uploaded_pdf_is_served_as_an_attachment(admin_client, client, disk):
    upload_document(admin_client, "add", "paper.pdf", pdf())
    document = Document.objects.get()

    response = client.get(f"/documents/{document.pk}/{document.filename}")

    assert_downloaded(response, pdf())


@pytest.mark.django_db
def test_html_named_pdf_uploaded_before_the_check_is_never_served_inline(client, disk):
    document = Document.objects.create(
        title="旧文件", file=ContentFile(HTML, name="old.pdf")
    )

    response = client.get(f"/documents/{document.pk}/{document.filename}")

    assert_downloaded(response, HTML)
