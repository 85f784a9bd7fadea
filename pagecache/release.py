"""Which release of the code is serving: part of every page-cache key.

Cached pages, and what is kept until a purge (listing rows, counts, rendered
bodies, feed entries), were made by the templates and code of one release. A
deploy that changes them must not serve the old ones until a purge happens to
come, nor hand the new code a kept value of another shape. So the page
cache's site token (``pagecache.cache``) is kept under a key naming the
release: a new release starts with a token of its own, and everything cached
by the old one is orphaned at once. KaTeX and Pygments output is keyed by
content and renderer versions instead (``rendering.cache``), so a deploy
does not run them again.

The release is ``settings.RELEASE`` when set (a commit id, say); otherwise a
digest of the files that shape the output, read once per process.
"""

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings

# The file types whose content decides what a page looks like; the folders
# they are read from are the project's (``settings.RELEASE_SOURCE_FOLDERS``).
SOURCE_SUFFIXES = {".py", ".html", ".xml", ".txt", ".css", ".js", ".svg"}


def source_digest(root: Path, folders) -> str:
    """Return a short digest of the source files in these folders of ``root``."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@cache
def _digest_of_this_checkout() -> str:
    return source_digest(Path(settings.BASE_DIR), settings.RELEASE_SOURCE_FOLDERS)


def release() -> str:
    """Return the name of the release this process serves."""
    return getattr(settings, "RELEASE", "") or _digest_of_this_checkout()
