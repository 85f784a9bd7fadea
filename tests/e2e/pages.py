"""The page types the browser, HTML and accessibility checks visit.

One entry per kind of page a reader can land on, all from the demo blog
(`load_demo`). Add a page here and every check covers it.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class DemoPage:
    name: str
    path: str
    status: int = 200


DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

HOME = DemoPage("home", "/")
SECTION = DemoPage("section", "/cuda/")
SERIES = DemoPage("series", "/notes/csapp/")
# The longest post with math: KaTeX, tables, code, a quote and many headings.
MATH_POST = DemoPage("post-math", "/cuda/flashattention-v1-v4/")
# A post with an image, an HTML figure and highlighted code.
FIGURE_POST = DemoPage("post-figures", "/cuda/bank-conflict-swizzle/")
TAG_INDEX = DemoPage("tag-index", "/tags/")
TAG = DemoPage("tag", "/tags/cuda/")
ARCHIVE = DemoPage("archive", "/archive/")
SEARCH = DemoPage("search", "/search/?q=%E9%87%8F%E5%8C%96")  # ?q=量化
NOT_FOUND = DemoPage("not-found", "/no-such-page/", status=404)
# A post imported from Markdown (the importer's fixture vault, every quirk in it):
# callouts, footnotes, a table, a figure, code and math made by the importer.
IMPORTED_POST = DemoPage("post-imported", "/notes/cuda/2-shared-memory/")

# Imported under /notes/ after load_demo, wherever the demo pages are served.
IMPORT_VAULT = Path(__file__).resolve().parents[1] / "vault/importer/fixtures/vault"
IMPORT_PARENT = "/notes/"

PAGES = (
    HOME,
    SECTION,
    SERIES,
    MATH_POST,
    FIGURE_POST,
    IMPORTED_POST,
    TAG_INDEX,
    TAG,
    ARCHIVE,
    SEARCH,
    NOT_FOUND,
)

# Pages whose feature has not landed yet, with the reason: every check of
# theirs is marked xfail until then, e.g. {SEARCH: "lands with search"}.
NOT_YET: dict[DemoPage, str] = {}


def page_params(pages=PAGES):
    """Return `pages` as pytest params, marking those not yet built as xfail."""
    return [
        pytest.param(
            page,
            id=page.name,
            marks=(
                [pytest.mark.xfail(strict=False, reason=NOT_YET[page])]
                if page in NOT_YET
                else []
            ),
        )
        for page in pages
    ]
