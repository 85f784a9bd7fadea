"""Uploaded media served from MEDIA_ROOT without a proxy (serving/media.py).

The settings are production's where it matters: DEBUG off, media on the file
system (the test settings keep it in memory), so what a reader of `make serve`
gets is what these tests get.
"""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from PIL import Image as PILImage
from wagtail.images.models import Image

SECRET = b"SECRET_KEY = 'not for readers'"


def png() -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (64, 48), "#2563eb").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def media_root(tmp_path, settings):
    """MEDIA_ROOT on disk, as production keeps it, with a secret file beside it."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "base.py").write_bytes(SECRET)
    (tmp_path / "secret.txt").write_bytes(SECRET)
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    }
    with override_settings(DEBUG=False):
        yield root


@pytest.fixture
def uploaded(admin_client, media_root):
    """An image uploaded through the admin, as an editor would."""
    content = png()
    response = admin_client.post(
        reverse("wagtailimages:add"),
        {"title": "roof", "file": SimpleUploadedFile("roof.png", content, "image/png")},
    )
    assert response.status_code == 302
    return Image.objects.get(), content


def read(response) -> bytes:
    return b"".join(response.streaming_content)


def test_an_uploaded_image_is_served_inline_with_its_type(client, uploaded):
    image, content = uploaded
    assert image.file.url.startswith("/media/original_images/")

    response = client.get(image.file.url)

    assert response.status_code == 200
    assert read(response) == content
    assert response["Content-Type"] == "image/png"
    assert response["Content-Length"] == str(len(content))
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("inline")
    # An original may be replaced: cached for an hour, then revalidated.
    assert response["Cache-Control"] == "public, max-age=3600"
    assert "immutable" not in response["Cache-Control"]
    assert response["Last-Modified"]


def test_a_rendition_is_served_as_immutable_for_a_year(client, uploaded):
    image, _ = uploaded
    rendition = image.get_rendition("width-32|format-webp")
    assert rendition.url.startswith("/media/images/")

    response = client.get(rendition.url)

    assert response.status_code == 200
    assert read(response)[8:12] == b"WEBP"
    assert response["Content-Type"] == "image/webp"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"


def test_a_client_with_the_current_copy_gets_304(client, uploaded):
    image, _ = uploaded
    first = client.get(image.file.url)

    again = client.get(image.file.url, headers={"if-none-match": first["ETag"]})

    assert again.status_code == 304
    assert again["Cache-Control"] == first["Cache-Control"]


def test_head_answers_the_headers_without_the_file(client, uploaded):
    image, content = uploaded

    response = client.head(image.file.url)

    assert response.status_code == 200
    assert response["Content-Length"] == str(len(content))
    assert not response.getvalue()


@pytest.mark.parametrize(
    "path",
    [
        "/media/../config/base.py",
        "/media/../secret.txt",
        "/media/%2e%2e/secret.txt",
        "/media/%2E%2E%2Fsecret.txt",
        "/media/..%5csecret.txt",
        "/media/%252e%252e/secret.txt",
        "/media/original_images/../../secret.txt",
        "/media//etc/passwd",
        "/media/%00.png",
    ],
)
def test_a_path_leading_out_of_media_is_404(client, media_root, path):
    response = client.get(path)

    assert response.status_code == 404
    assert SECRET not in response.content


def test_a_symbolic_link_leading_out_of_media_is_404(client, media_root):
    (media_root / "link.txt").symlink_to(media_root.parent / "secret.txt")

    response = client.get("/media/link.txt")

    assert response.status_code == 404
    assert SECRET not in response.content


def test_a_directory_is_not_listed(client, uploaded):
    for path in ("/media/", "/media/original_images/", "/media/original_images"):
        response = client.get(path)

        assert response.status_code == 404, path
        assert b"roof" not in response.content


def test_a_missing_file_or_a_dotfile_is_404(client, media_root):
    (media_root / ".env").write_bytes(SECRET)

    assert client.get("/media/original_images/gone.png").status_code == 404
    assert client.get("/media/.env").status_code == 404


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("drawing.svg", "image/svg+xml"),
        ("page.html", "text/html"),
        ("notes.pdf", "application/pdf"),
        ("tool.bin", "application/octet-stream"),
    ],
)
def test_a_file_that_could_run_script_is_a_sandboxed_download(
    client, media_root, name, content_type
):
    (media_root / "documents").mkdir()
    (media_root / "documents" / name).write_bytes(
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    )

    response = client.get(f"/media/documents/{name}")

    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    assert response["X-Content-Type-Options"] == "nosniff"
    policy = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    assert "default-src 'none'" in policy
    assert "sandbox" in policy


def test_nothing_is_served_locally_with_object_storage(
    client, db, media_root, settings
):
    (media_root / "original_images").mkdir()
    (media_root / "original_images" / "left.png").write_bytes(png())
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": "blog-media"},
        },
    }

    response = client.get("/media/original_images/left.png")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
