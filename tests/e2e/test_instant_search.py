"""Instant search in a real Chromium: Ctrl+K or / opens it, results come as one
types, arrows and Enter open a result, Esc closes; no snippet shows TeX.

Screenshots of the open dialog and of the results page, light and dark,
desktop and phone, go to `test-artifacts/issue24/search/` for a person to look at.
"""

import re
from pathlib import Path
from urllib.parse import quote

import pytest

from scripts.support.pages import DemoPage
from tests.e2e.ci import ROOT, require
from tests.e2e.pages import DESKTOP, FIGURE_POST, HOME, PHONE

pytestmark = pytest.mark.e2e

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts/issue24/search"
RAW_TEX = re.compile(r"\$|\\\(|\\\)|\\\[|\\[A-Za-z]+")
DIALOG = "#search-dialog"
OPTIONS = "#search-dialog-results [role=option]"

# Each snippet's text a reader sees outside typeset math, and whether its
# formulas are typeset (MathML), for every snippet matching the selector.
SNIPPET_TEXTS = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(".katex").forEach((math) => math.remove());
    return {
        outside: copy.textContent,
        shown: el.innerText,
        formulas: el.querySelectorAll(".katex math").length,
    };
})"""


def search_for(page, text):
    field = page.locator("#search-dialog-q")
    field.fill(text)
    # The list says whose results it shows: wait for this query's.
    page.wait_for_function(
        """(text) => document.querySelector("#search-dialog-results")
            .getAttribute("data-query") === text""",
        arg=text,
    )


def errors(problems):
    """Return the page's problems but the searches aborted on purpose, when
    newer typing made their answer stale."""
    return [
        e for e in problems.errors if not e.endswith("format=json (net::ERR_ABORTED)")
    ]


def assert_no_raw_tex(snippets):
    assert snippets, "no snippets to check"
    for snippet in snippets:
        assert not RAW_TEX.search(snippet["outside"]), snippet["outside"]
        assert "$" not in snippet["shown"], snippet["shown"]


def test_ctrl_k_searches_as_one_types_and_enter_opens_the_selected_result(open_page):
    page, problems = open_page(HOME)
    page.keyboard.press("Control+k")
    dialog = page.locator(DIALOG)
    assert dialog.is_visible()
    assert page.evaluate("document.activeElement.id") == "search-dialog-q"

    page.keyboard.type("ldmatrix", delay=30)
    page.wait_for_selector(OPTIONS)
    options = page.locator(OPTIONS)
    assert options.count() >= 2
    assert "ldmatrix" in options.first.inner_text().lower()
    # The first result is selected as results arrive; ArrowDown moves on.
    assert options.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowDown")
    assert options.nth(1).get_attribute("aria-selected") == "true"
    assert options.nth(0).get_attribute("aria-selected") == "false"
    field = page.locator("#search-dialog-q")
    assert field.get_attribute("aria-activedescendant") == options.nth(1).get_attribute(
        "id"
    )
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    target = options.nth(1).get_attribute("href")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(target)
    assert errors(problems) == []


def test_slash_opens_and_escape_closes_returning_focus(open_page):
    page, problems = open_page(FIGURE_POST)
    link = page.locator(".site-title")
    link.focus()
    page.keyboard.press("/")
    assert page.locator(DIALOG).is_visible()
    page.keyboard.type("量化")
    page.wait_for_selector(OPTIONS)
    page.keyboard.press("Escape")
    assert not page.locator(DIALOG).is_visible()
    assert page.evaluate("document.activeElement.className") == "site-title"
    # A / typed into a field is a character, not a shortcut.
    header = page.locator(".site-search input")
    header.evaluate(
        "(el) => el.dispatchEvent(new KeyboardEvent('keydown', "
        "{key: '/', bubbles: true}))"
    )
    assert not page.locator(DIALOG).is_visible()
    assert errors(problems) == []


def test_chinese_and_formula_queries_show_typeset_math_never_tex(open_page):
    page, problems = open_page(FIGURE_POST)
    page.keyboard.press("Control+k")
    formulas = 0
    for query in ("量化", "冲突度", "ldmatrix", "bank", "swizzle", "softmax"):
        search_for(page, query)
        snippets = page.evaluate(SNIPPET_TEXTS, ".search-dialog-snippet")
        assert_no_raw_tex(snippets)
        formulas += sum(snippet["formulas"] for snippet in snippets)
    assert formulas > 0, "no snippet showed a formula: the check proves nothing"
    assert errors(problems) == []


@pytest.mark.parametrize("query", ["量化", "冲突度", "ldmatrix", "softmax"])
def test_results_page_snippets_show_no_tex(open_page, query):
    page, problems = open_page(DemoPage("search", f"/search/?q={quote(query)}"))
    snippets = page.evaluate(SNIPPET_TEXTS, ".search-snippet")
    assert snippets, query
    assert_no_raw_tex(snippets)
    assert errors(problems) == []


def test_nothing_found_says_so(open_page):
    page, _ = open_page(HOME)
    page.keyboard.press("Control+k")
    page.locator("#search-dialog-q").fill("qqqzzzxxy")
    status = page.locator(".search-dialog-status")
    status.filter(has_text="没有找到").wait_for()
    assert page.locator(OPTIONS).count() == 0


def test_typing_in_the_header_box_carries_on_in_the_dialog(open_page):
    page, _ = open_page(HOME)
    page.locator(".site-search input").click()
    page.keyboard.type("swiz")
    assert page.locator(DIALOG).is_visible()
    page.keyboard.type("zle")
    assert page.locator("#search-dialog-q").input_value() == "swizzle"
    page.wait_for_selector(OPTIONS)


def test_on_a_phone_the_header_search_is_a_button_that_opens_the_dialog(open_page):
    page, problems = open_page(HOME, viewport=PHONE)
    assert not page.locator(".site-search input").is_visible()
    button = page.locator(".site-search button")
    box = button.bounding_box()
    assert box["width"] >= 40  # a button, not a sliver
    button.click()
    assert page.locator(DIALOG).is_visible()
    search_for(page, "swizzle")
    assert page.locator(OPTIONS).count() >= 1
    assert page.url.endswith("/")  # the dialog, not an empty results page
    assert errors(problems) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390"])
def test_screenshots_of_the_dialog_and_the_results_page(open_page, scheme, viewport):
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = "desktop" if viewport == DESKTOP else "390"
    page, problems = open_page(FIGURE_POST, color_scheme=scheme, viewport=viewport)
    page.keyboard.press("Control+k")
    search_for(page, "冲突度")
    page.keyboard.press("ArrowDown")
    # The dialog fits the screen, its field and first result in view.
    box = page.locator(DIALOG).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    page.screenshot(path=SHOTS / f"dialog-{name}-{scheme}.png")
    page.keyboard.press("Escape")
    page, problems_too = open_page(
        DemoPage("search", "/search/?q=bank"), color_scheme=scheme, viewport=viewport
    )
    page.screenshot(path=SHOTS / f"results-{name}-{scheme}.png")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"]
    assert errors(problems) == errors(problems_too) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_open_dialog_with_results_has_no_serious_axe_violations(open_page, scheme):
    require(AXE.exists(), "node_modules/axe-core is missing: run `make install`")
    # axe goes in as an inline script: the site's policy would refuse it.
    page, _ = open_page(FIGURE_POST, color_scheme=scheme, bypass_csp=True)
    page.add_script_tag(path=str(AXE))
    page.keyboard.press("Control+k")
    search_for(page, "ldmatrix")
    page.keyboard.press("ArrowDown")
    results = page.evaluate("axe.run('#search-dialog', {resultTypes: ['violations']})")
    serious = [
        f"{v['impact']}: {v['id']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []
