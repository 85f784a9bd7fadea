"""Remote images: downloaded into the media library with ``--fetch-images``, safely."""

import http.server
import threading
from io import BytesIO

import pytest
from PIL import Image
from wagtail.images import get_image_model

from blog.models import PostPage
from tests.vault.importer.reader import page_html
from tests.vault.importer.runs import outcomes

pytestmark = pytest.mark.django_db


def png_bytes() -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (7, 5), (10, 200, 30)).save(buffer, "PNG")
    return buffer.getvalue()


# The paths the image server was asked for, in order.
REQUESTS: list[str] = []


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: dict = {}

    def do_GET(self):  # noqa: N802 (the name http.server calls)
        REQUESTS.append(self.path)
        status, headers, body = self.routes.get(self.path, (404, {}, b"not found"))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def image_server(monkeypatch):
    """A local HTTP server: a PNG, a page of text, a redirect to a file URL, 404s."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    routes = {
        "/figs/ok.png": (200, {"Content-Type": "image/png"}, png_bytes()),
        "/figs/page.png": (200, {"Content-Type": "text/html"}, b"<html>no</html>"),
        "/figs/moved.png": (302, {"Location": "file:///etc/passwd"}, b""),
        "/figs/big.png": (200, {"Content-Type": "image/png"}, b"\0" * 4096),
    }
    REQUESTS.clear()
    handler = type("Handler", (_Handler,), {"routes": routes})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_fetch_images_downloads_remote_images_into_the_library(
    client, run_import, tmp_path, image_server, monkeypatch
):
    monkeypatch.setattr("vault.importer.fetch.MAX_BYTES", 2048)
    root = tmp_path / "net"
    root.mkdir()
    (root / "net.md").write_text(
        "---\ntitle: Fetched\n---\n\n"
        f"![ok]({image_server}/figs/ok.png)\n\n"
        f"![gone]({image_server}/figs/gone.png)\n\n"
        f"![page]({image_server}/figs/page.png)\n\n"
        f"![moved]({image_server}/figs/moved.png)\n\n"
        f"![big]({image_server}/figs/big.png)\n\n"
        "<!-- block:markdown -->\n"
        f"Also in Markdown: ![ok again]({image_server}/figs/ok.png)\n"
        "<!-- /block -->\n",
        "utf-8",
    )
    run = run_import(root, "--fetch-images")
    assert run.error is None, run.out
    for name, reason in [
        ("gone", "HTTP 404"),
        ("page", "page.png is not an image Pillow can read"),
        ("moved", "redirected to a non-http(s) URL file:///etc/passwd"),
        ("big", "larger than 2048 bytes"),
    ]:
        assert (
            f"remote image not fetched: {image_server}/figs/{name}.png ({reason})"
            in run.out
        ), run.out
    images = get_image_model().objects.all()
    assert [(image.width, image.height) for image in images] == [(7, 5)]
    (image,) = images
    assert image.file.storage.exists(image.file.name)
    body = PostPage.objects.get(source_path="net.md").body
    assert body[0].value["image"].pk == image.pk and body[0].value["url"] == ""
    assert body[-1].value == f"Also in Markdown: ![ok again](image:{image.pk})"
    html = page_html(client, "net.md")
    assert f'<img src="{image.file.url}" alt="ok again"' in html
    # What could not be fetched is still shown from where it is.
    for name in ("gone", "page", "moved", "big"):
        assert f'src="{image_server}/figs/{name}.png"' in html


def test_without_fetch_images_nothing_is_downloaded(
    client, run_import, tmp_path, image_server
):
    root = tmp_path / "net"
    root.mkdir()
    (root / "net.md").write_text(
        f"---\ntitle: Not fetched\n---\n\n![ok]({image_server}/figs/ok.png)\n",
        "utf-8",
    )
    run = run_import(root)
    assert run.error is None, run.out
    assert not get_image_model().objects.exists()
    assert f'<img src="{image_server}/figs/ok.png"' in page_html(client, "net.md")


def test_fetching_later_imports_the_images_of_unchanged_files(
    run_import, tmp_path, image_server
):
    root = tmp_path / "net"
    root.mkdir()
    (root / "net.md").write_text(
        f"---\ntitle: Later\n---\n\n![ok]({image_server}/figs/ok.png)\n", "utf-8"
    )
    assert run_import(root).error is None
    assert REQUESTS == []
    run = run_import(root, "--fetch-images")
    assert run.error is None, run.out
    body = PostPage.objects.get(source_path="net.md").body
    assert body[0].value["image"] is not None
    assert REQUESTS == ["/figs/ok.png"]
    # Unchanged since: nothing to download again.
    again = run_import(root, "--fetch-images")
    assert outcomes(again.out)["unchanged"] == (1, 0), again.out
    assert REQUESTS == ["/figs/ok.png"]
