"""Serve uploaded media (``MEDIA_ROOT``) when it is on this machine's disk.

WhiteNoise serves the static files, but it reads its list of files at start
and its docs say it is not for media, which changes while the server runs (its
``autorefresh`` is for development only). Django's ``static.serve`` is for
development too. So uploads are served by this middleware: a small version of
that view, placed beside WhiteNoise, above the page cache and compression
(an image is neither a page nor worth gzipping), and only when the default
storage is the file system; with object storage (``AWS_STORAGE_BUCKET_NAME``)
the bucket or its CDN serves media and this middleware is not used.

What a file is sent with:

- a type from its extension, ``X-Content-Type-Options: nosniff``, and no
  ``Content-Type`` guessed from its bytes;
- raster images inline; anything else (an SVG, HTML, a PDF, a file of an
  unknown type) as an attachment, and every file with a policy that runs
  nothing in this site's origin (``default-src 'none'; sandbox``, as GitHub
  serves user content);
- renditions (``images/``) cached for a year as ``immutable``: Wagtail names
  each after its original, its filter and its focal point, and a new file or
  focal point makes a new name. Originals (``original_images/``) and
  documents are cached for an hour, then revalidated by ``Last-Modified``
  and ``ETag`` (304).

A directory, a dotfile, a path outside ``MEDIA_ROOT`` (``..``, encoded or
not, or a symbolic link leading out) and a missing file are all 404.
"""

import mimetypes
import os
import stat
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed, SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage, storages
from django.http import FileResponse, HttpResponse, HttpResponseNotFound
from django.utils.cache import get_conditional_response
from django.utils.http import http_date
from django.utils.module_loading import import_string

# The types of the images Wagtail takes and makes (WAGTAILIMAGES_EXTENSIONS),
# whatever this machine's /etc/mime.types says; other files by mimetypes.
IMAGE_TYPES = {
    ".avif": "image/avif",
    ".gif": "image/gif",
    ".jpeg": "image/jpeg",
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
}
# Shown inline: images a browser only draws, never runs. SVG is not one.
INLINE_TYPES = frozenset(IMAGE_TYPES.values())
# Wagtail's renditions folder (AbstractRendition.get_upload_to).
RENDITIONS = "images/"
RENDITION_CACHE = "public, max-age=31536000, immutable"
ORIGINAL_CACHE = "public, max-age=3600"
# Nothing loads, nothing runs, and the document gets an opaque origin.
SANDBOX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


def local_media_storage() -> FileSystemStorage | None:
    """Return the default storage if it keeps media on local disk at a local URL."""
    backend = import_string(settings.STORAGES["default"]["BACKEND"])
    if not issubclass(backend, FileSystemStorage):
        return None
    storage = storages["default"]
    base_url = storage.base_url or ""
    if urlsplit(base_url).netloc or not base_url.startswith("/"):
        return None  # media lives on another host
    return storage


def content_type_of(filename: str) -> str:
    """Return the Content-Type of ``filename``, by its extension alone."""
    extension = os.path.splitext(filename)[1].lower()
    if extension in IMAGE_TYPES:
        return IMAGE_TYPES[extension]
    content_type, encoding = mimetypes.guess_type(filename, strict=False)
    if encoding or not content_type:
        return "application/octet-stream"  # a .gz is a download, not its content
    return content_type


class MediaFilesMiddleware:
    """Answer GET and HEAD under ``MEDIA_URL`` with the file from ``MEDIA_ROOT``."""

    def __init__(self, get_response):
        storage = local_media_storage()
        if storage is None:
            raise MiddlewareNotUsed
        self.get_response = get_response
        self.storage = storage
        self.prefix = storage.base_url
        self.root = os.path.realpath(storage.location)

    def __call__(self, request):
        path = request.path_info
        if request.method not in ("GET", "HEAD") or not path.startswith(self.prefix):
            return self.get_response(request)
        return self.serve(request, path.removeprefix(self.prefix))

    def serve(self, request, name: str):
        """Return the file ``name`` (a path below MEDIA_ROOT) or a 404."""
        found = self.find(name)
        if found is None:
            return HttpResponseNotFound(b"Not Found", content_type="text/plain")
        filename, info = found
        content_type = content_type_of(filename)
        headers = {
            "Cache-Control": (
                RENDITION_CACHE if name.startswith(RENDITIONS) else ORIGINAL_CACHE
            ),
            "Last-Modified": http_date(info.st_mtime),
            "ETag": f'"{info.st_mtime_ns:x}-{info.st_size:x}"',
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": SANDBOX_POLICY,
        }
        probe = HttpResponse(headers=headers)
        answer = get_conditional_response(
            request,
            etag=headers["ETag"],
            last_modified=int(info.st_mtime),
            response=probe,
        )
        if answer is not probe:
            return answer  # 304 Not Modified, or 412 to a failed If-Match
        try:
            file = open(filename, "rb")  # noqa: SIM115 - FileResponse closes it
        except OSError:
            return HttpResponseNotFound(b"Not Found", content_type="text/plain")
        return FileResponse(
            file,
            content_type=content_type,
            as_attachment=content_type not in INLINE_TYPES,
            filename=os.path.basename(filename),
            headers=headers,
        )

    def find(self, name: str) -> tuple[str, os.stat_result] | None:
        """Return the path and stat of regular file ``name`` inside the root, or None."""
        parts = name.split("/")
        if not name or "\\" in name or "\x00" in name:
            return None
        if any(not part or part.startswith(".") for part in parts):
            return None  # empty segments, . and .., hidden files
        try:
            # FileSystemStorage.path refuses a name that leads out of its folder.
            filename = os.path.realpath(self.storage.path(name))
        except (SuspiciousFileOperation, ValueError):
            return None
        if not filename.startswith(self.root + os.sep):
            return None  # a symbolic link leading out of MEDIA_ROOT
        try:
            info = os.stat(filename)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(info.st_mode):
            return None  # a directory is never listed
        return filename, info
