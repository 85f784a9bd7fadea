"""What an import run left, as the importer's tests look at it.

The report's counts, the pages made from files, and the rows and files of
the whole site, to compare before and after a run.
"""

import re
from pathlib import Path

from taggit.models import Tag
from wagtail.contrib.redirects.models import Redirect
from wagtail.documents import get_document_model
from wagtail.images import get_image_model
from wagtail.models import Page, Revision

from blog.models import PostPage, PostTag

# The fixture vault's post most tests look at.
MAIN = "cuda/2-shared-memory.md"


def outcomes(out: str) -> dict[str, tuple[int, int]]:
    """Return {outcome: (posts, series)} from the report's table."""
    rows = re.findall(r"^(created|updated|unchanged|failed) +(\d+) +(\d+)$", out, re.M)
    return {name: (int(posts), int(series)) for name, posts, series in rows}


def line_of(path: Path, needle: str) -> int:
    """Return the 1-based line of ``path`` holding ``needle``."""
    lines = path.read_text("utf-8").splitlines()
    return next(n for n, text in enumerate(lines, start=1) if needle in text)


def post(source_path: str) -> PostPage:
    return PostPage.objects.get(source_path=source_path)


def children(url_path: str) -> list[str]:
    page = Page.objects.get(url_path=url_path)
    return [child.slug for child in page.get_children().order_by("path")]


def totals() -> dict[str, int]:
    return {
        "pages": Page.objects.count(),
        "revisions": Revision.objects.count(),
        "images": get_image_model().objects.count(),
        "documents": get_document_model().objects.count(),
        "redirects": Redirect.objects.count(),
        "tags": Tag.objects.count(),
        "tagged": PostTag.objects.count(),
    }


def stored_files() -> set[str]:
    storage = get_image_model()._meta.get_field("file").storage
    if not storage.exists("original_images"):
        return set()
    return set(storage.listdir("original_images")[1])
