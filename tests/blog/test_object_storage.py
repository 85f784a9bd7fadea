"""Media on S3-compatible object storage (django-storages), against a real server.

moto's S3 server runs on a free port of 127.0.0.1; the storage settings are the
ones production builds from AWS_STORAGE_BUCKET_NAME and AWS_S3_ENDPOINT_URL.
"""

import io
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import boto3
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image as PILImage
from wagtail.documents.models import Document
from wagtail.images.models import Image

from scripts.support.servers import free_port
from tests.blog.test_uploads import assert_downloaded, pdf

MOTO_SERVER = Path(sys.executable).with_name("moto_server")
BUCKET = "blog-media"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
PUBLIC_READ = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": "*",
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{BUCKET}/*",
        }
    ],
}


@pytest.fixture(scope="module")
def s3_endpoint():
    port = free_port()
    process = subprocess.Popen(  # noqa: S603
        [str(MOTO_SERVER), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url, timeout=1)  # noqa: S310
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("moto_server did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def bucket(s3_endpoint, settings, monkeypatch):
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    # As the deployment guide says: readers get media straight from the bucket.
    client.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(PUBLIC_READ))
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "querystring_auth": False,
                "file_overwrite": False,
            },
        },
    }
    yield client
    for item in client.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        client.delete_object(Bucket=BUCKET, Key=item["Key"])
    client.delete_bucket(Bucket=BUCKET)


def png() -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (64, 48), "#ef4444").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.django_db
def test_an_uploaded_image_and_its_renditions_live_in_the_bucket(admin_client, bucket):
    content = png()
    response = admin_client.post(
        reverse("wagtailimages:add"),
        {"title": "bank", "file": SimpleUploadedFile("bank.png", content, "image/png")},
    )
    assert response.status_code == 302
    image = Image.objects.get()
    keys = {item["Key"] for item in bucket.list_objects_v2(Bucket=BUCKET)["Contents"]}
    assert image.file.name in keys

    # Anyone (another app server, a reader) gets it from the bucket's URL.
    with urllib.request.urlopen(image.file.url) as served:  # noqa: S310
        assert served.read() == content
    rendition = image.get_rendition("width-32|format-webp")
    with urllib.request.urlopen(rendition.url) as served:  # noqa: S310
        assert served.read(12)[8:12] == b"WEBP"
    keys = {item["Key"] for item in bucket.list_objects_v2(Bucket=BUCKET)["Contents"]}
    assert rendition.file.name in keys


@pytest.mark.django_db
def test_a_document_in_the_bucket_is_served_by_the_site_as_an_attachment(
    admin_client, client, bucket
):
    admin_client.post(
        reverse("wagtaildocs:add"),
        {"title": "paper", "file": SimpleUploadedFile("paper.pdf", pdf())},
    )
    document = Document.objects.get()

    # Not a redirect to the bucket, which would send it to be shown inline.
    response = client.get(document.url)

    assert document.url == f"/documents/{document.pk}/paper.pdf"
    assert_downloaded(response, pdf())
