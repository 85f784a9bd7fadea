"""Screenshots of what issue 24 gave readers, desktop and 390 px, light and dark.

Saved under `test-artifacts/issue24/reader/` to be looked at: the explorer
beside a post (the phone's menu open), a post's end, a numbered formula,
highlighted code, Markdown code and an interactive figure. Each view is
checked for what a screenshot would hide: the page never scrolls sideways.
"""

import pytest

from scripts.support.pages import FIGURE_POST, MATH_POST, SERIES
from tests.e2e.ci import ARTIFACTS
from tests.e2e.pages import DESKTOP, PHONE
from tests.e2e.test_post_end import HIGHLIGHT_POST, MARKDOWN_CODE_POST, SECTION_POST

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "issue24" / "reader"

# (name, page, the element shown in the shot)
VIEWS = [
    ("post-end", SECTION_POST, ".post-footer"),
    ("equation", MATH_POST, ".block-math.has-label"),
    ("code-highlighted", HIGHLIGHT_POST, ".block-code:has(.hll)"),
    ("code-markdown", MARKDOWN_CODE_POST, ".block-markdown .block-code"),
    ("figure", FIGURE_POST, ".block-html-figure"),
]


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390"])
def test_the_explorer_beside_a_series(open_page, scheme, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = "desktop" if viewport == DESKTOP else "390"
    page, problems = open_page(SERIES, color_scheme=scheme, viewport=viewport)
    if viewport == PHONE:
        page.locator(".menu-toggle").click()
    explorer = page.locator(".explorer")
    explorer.wait_for()
    assert explorer.locator("[aria-current=page]").count() == 1
    page.screenshot(path=SHOTS / f"explorer-{name}-{scheme}.png")
    assert no_sideways_scroll(page)
    assert problems.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390"])
@pytest.mark.parametrize(
    ("view", "demo_page", "selector"), VIEWS, ids=[v[0] for v in VIEWS]
)
def test_views_of_a_post(open_page, scheme, viewport, view, demo_page, selector):
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = "desktop" if viewport == DESKTOP else "390"
    page, problems = open_page(demo_page, color_scheme=scheme, viewport=viewport)
    element = page.locator(selector).first
    element.scroll_into_view_if_needed()
    element.screenshot(path=SHOTS / f"{view}-{name}-{scheme}.png")
    assert no_sideways_scroll(page)
    assert problems.errors == []
