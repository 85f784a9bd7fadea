"""Download the remote images of a vault (``import_markdown --fetch-images``).

Only http(s), also when redirected; a time limit per request and a cap on
size. Whether the bytes are an image is for Pillow to say when the image is
stored (`images.ImageStore.add`).
"""

from __future__ import annotations

import mimetypes
import posixpath
import re
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote, urlsplit

TIMEOUT = 15  # seconds, per request
MAX_BYTES = 20 * 1024 * 1024
WORKERS = 8
_SCHEMES = ("http", "https")
_UNSAFE_NAME = re.compile(r"[^\w.-]+")


class FetchError(Exception):
    """A remote image could not be downloaded; the message says why."""


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) URLs only (urllib would also follow ftp)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).scheme.lower() not in _SCHEMES:
            raise FetchError(f"redirected to a non-http(s) URL {newurl}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class RemoteImages:
    """Each remote image of a run, downloaded once (several at a time)."""

    def __init__(self, *, timeout: float | None = None, max_bytes: int | None = None):
        self.timeout = TIMEOUT if timeout is None else timeout
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes
        self._opener = urllib.request.build_opener(_HttpOnlyRedirects)
        self._done: dict[str, tuple[bytes, str] | FetchError] = {}

    def prefetch(self, urls: Iterable[str]) -> None:
        """Download every URL not downloaded yet, in parallel."""
        todo = sorted(set(urls) - set(self._done))
        if not todo:
            return
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for url, result in zip(todo, pool.map(self._download, todo), strict=True):
                self._done[url] = result

    def get(self, url: str) -> tuple[bytes, str]:
        """Return (content, file name) of the image at ``url``; raise FetchError."""
        if url not in self._done:
            self._done[url] = self._download(url)
        result = self._done[url]
        if isinstance(result, FetchError):
            raise result
        return result

    def _download(self, url: str) -> tuple[bytes, str] | FetchError:
        if urlsplit(url).scheme.lower() not in _SCHEMES:
            return FetchError("not an http(s) URL")
        request = urllib.request.Request(  # noqa: S310 (http(s) checked above)
            url, headers={"User-Agent": "blog-importer", "Accept": "image/*"}
        )
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                length = response.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > self.max_bytes:
                    return FetchError(f"larger than {self.max_bytes} bytes")
                data = response.read(self.max_bytes + 1)
                kind = response.headers.get_content_type()
                final = response.geturl()
        except FetchError as error:
            return error
        except urllib.error.HTTPError as error:
            target = (error.headers or {}).get("Location") or ""
            scheme = urlsplit(target).scheme.lower()
            if 300 <= error.code < 400 and scheme not in ("", *_SCHEMES):
                return FetchError(f"redirected to a non-http(s) URL {target}")
            return FetchError(f"HTTP {error.code}")
        except urllib.error.URLError as error:
            return FetchError(str(error.reason))
        except (TimeoutError, OSError, ValueError) as error:
            return FetchError(str(error) or type(error).__name__)
        if len(data) > self.max_bytes:
            return FetchError(f"larger than {self.max_bytes} bytes")
        return data, file_name(final, kind)


def file_name(url: str, content_type: str = "") -> str:
    """Return a file name for the image at ``url``: its last path segment."""
    name = posixpath.basename(unquote(urlsplit(url).path))
    stem, ext = posixpath.splitext(name)
    stem = _UNSAFE_NAME.sub("-", stem).strip("-.")[:80] or "image"
    if not ext or len(ext) > 6:
        ext = mimetypes.guess_extension(content_type) or ""
    return stem + _UNSAFE_NAME.sub("", ext).lower()
