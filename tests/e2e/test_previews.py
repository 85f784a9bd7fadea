"""Hover previews of internal links, and the graph of a post's neighbourhood.

The demo's CuTe post links to the Bank Conflict post, whose first paragraph
has inline math; the ILP post links to the CuTe post. Screenshots of an open
card and of the graph, desktop and phone, light and dark, go to
`test-artifacts/issue24/previews/`.
"""

import pytest

from scripts.support.pages import DemoPage
from tests.e2e.ci import ARTIFACTS
from tests.e2e.pages import DESKTOP, HOME, PHONE

pytestmark = pytest.mark.e2e

GRAPH_POST = DemoPage("post-graph", "/cuda/cute/cute-flashattention-2/")
MATH_TARGET = "/cuda/bank-conflict-swizzle/"
BODY_LINK = f".post-body a[href='{MATH_TARGET}']"
CARD = ".preview-card"
SCREENSHOTS = ARTIFACTS / "issue24" / "previews"

# Whether two boxes of the page overlap.
OVERLAP = """([a, b]) => {
    const r = document.querySelector(a).getBoundingClientRect();
    const s = document.querySelector(b).getBoundingClientRect();
    return !(r.right <= s.left || s.right <= r.left || r.bottom <= s.top || s.bottom <= r.top);
}"""


def shoot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png")


def test_hovering_a_link_shows_its_card_with_typeset_math_and_escape_hides_it(
    open_page,
):
    page, problems = open_page(GRAPH_POST)
    link = page.locator(BODY_LINK).first
    link.scroll_into_view_if_needed()
    link.hover()
    card = page.locator(CARD)
    card.wait_for(state="visible", timeout=5000)
    assert "从 Bank Conflict 到 CUTLASS Swizzle" in card.inner_text()
    assert card.locator(".preview-excerpt .katex").count() >= 1
    assert "$" not in card.inner_text()
    assert link.get_attribute("aria-describedby") == "preview-card"
    # Below or above the link, never over it.
    assert not page.evaluate(OVERLAP, [CARD, BODY_LINK])

    # The pointer moves into the card: it stays.
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(700)
    assert card.is_visible()

    page.keyboard.press("Escape")
    assert card.is_hidden()
    assert problems.errors == []


def test_a_card_on_a_page_without_math_loads_the_math_styles(open_page):
    page, problems = open_page(HOME)
    assert page.locator("link[href*='katex']").count() == 0
    link = page.locator(f".post-card-title a[href='{MATH_TARGET}']").first
    link.scroll_into_view_if_needed()
    link.hover()
    card = page.locator(CARD)
    card.wait_for(state="visible", timeout=5000)
    assert card.locator(".katex").count() >= 1
    # KaTeX's own stylesheet hides the MathML copy once it has loaded.
    page.wait_for_function(
        """() => {
            const m = document.querySelector('.preview-card .katex-mathml');
            return m && getComputedStyle(m).position === 'absolute';
        }""",
        timeout=5000,
    )
    page.mouse.move(5, 5)
    card.wait_for(state="hidden", timeout=3000)
    assert problems.errors == []


def test_keyboard_focus_shows_the_card(open_page):
    page, problems = open_page(GRAPH_POST)
    page.locator(BODY_LINK).first.focus()
    page.locator(CARD).wait_for(state="visible", timeout=5000)
    page.keyboard.press("Escape")
    assert page.locator(CARD).is_hidden()
    assert problems.errors == []


def test_a_long_press_shows_the_card_on_a_phone_and_a_tap_elsewhere_closes_it(
    new_context,
):
    context = new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(GRAPH_POST.path)
    link = page.locator(BODY_LINK).first
    link.scroll_into_view_if_needed()
    box = link.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = context.new_cdp_session(page)
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]},
    )
    page.wait_for_timeout(800)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    card = page.locator(CARD)
    card.wait_for(state="visible", timeout=5000)
    assert card.locator(".katex").count() >= 1
    assert page.url.endswith(GRAPH_POST.path), "the long press followed the link"
    assert not page.evaluate(OVERLAP, [CARD, BODY_LINK])
    # A tap on the post's title, away from the card, closes it.
    page.locator(".post-title").tap()
    card.wait_for(state="hidden", timeout=3000)
    assert errors == []


def test_the_graphs_nodes_are_links_to_the_posts_they_name(open_page):
    page, problems = open_page(GRAPH_POST)
    graph = page.locator(".post-graph")
    assert graph.is_visible()
    nodes = graph.locator("a.graph-node")
    hrefs = nodes.evaluate_all("(links) => links.map((a) => a.getAttribute('href'))")
    assert GRAPH_POST.path in hrefs  # the post itself, in the middle
    assert MATH_TARGET in hrefs and "/cuda/flashattention-v1-v4/" in hrefs
    assert "/cuda/ilp-and-mlp/" in hrefs and "/cuda/cute/" in hrefs

    out = graph.locator(f"a.graph-node-out[href='{MATH_TARGET}']")
    title = out.locator("title").text_content()
    out.click()
    page.wait_for_url(f"**{MATH_TARGET}")
    assert page.locator("h1").inner_text() == title
    assert problems.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_screenshots_of_an_open_card_and_of_the_graph(open_page, scheme, size):
    page, problems = open_page(
        GRAPH_POST,
        color_scheme=scheme,
        viewport=DESKTOP if size == "desktop" else PHONE,
    )
    graph = page.locator(".post-graph")
    if size == "phone":
        graph.locator("summary").click()
    graph.scroll_into_view_if_needed()
    svg = graph.locator("svg")
    assert svg.bounding_box()["width"] <= PHONE["width"]
    shoot(page, f"graph-{size}-{scheme}")

    link = page.locator(BODY_LINK).first
    link.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, -200)")
    link.hover() if size == "desktop" else link.focus()
    page.locator(CARD).wait_for(state="visible", timeout=5000)
    page.wait_for_timeout(300)  # KaTeX's fonts
    shoot(page, f"card-{size}-{scheme}")
    assert problems.errors == []
