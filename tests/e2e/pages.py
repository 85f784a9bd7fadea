"""The page types the browser, HTML and accessibility checks visit.

One entry per kind of page a reader can land on: the demo blog's
(`load_demo`, listed in scripts/support/pages.py, which `make audit` shares)
and a post imported from Markdown. Add a page to PAGES and every check covers it.
"""

from pathlib import Path

import pytest

from scripts.support.pages import (
    ARCHIVE,
    FIGURE_POST,
    HOME,
    MATH_POST,
    NOT_FOUND,
    SEARCH,
    SECTION,
    SERIES,
    TAG,
    TAG_INDEX,
    DemoPage,
)

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

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
