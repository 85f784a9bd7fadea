"""Mermaid diagrams in a real Chromium: drawn on the page, in the editor's preview.

The demo's post on pinned memory holds a ```mermaid fence; the longest math
post holds none and must not load Mermaid.
"""

import pytest

from scripts.support.pages import DemoPage
from tests.e2e.ci import ARTIFACTS
from tests.e2e.pages import MATH_POST, PHONE
from tests.e2e.test_live_math import add_block, add_post_form, unexpected

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "diagrams"
DIAGRAM_POST = DemoPage("post-diagram", "/cuda/cuda-basic-concept/")
DRAWN = "figure.block-diagram svg"
MERMAID = "/static/mermaid/mermaid.min.js"
# The fill of the diagram's first box, as the reader sees it.
BOX_FILL = """() => getComputedStyle(
    document.querySelector("figure.block-diagram svg .node rect, "
        + "figure.block-diagram svg .node polygon")).fill"""


def test_a_diagram_is_drawn_in_place_of_its_source(open_page):
    page, problems = open_page(DIAGRAM_POST)
    page.locator(DRAWN).wait_for(timeout=15_000)
    figure = page.locator("figure.block-diagram")
    assert figure.count() == 1
    # The source's code is gone; its labels are the drawing's.
    assert figure.locator("pre").count() == 0
    assert "Pinned staging buffer" in figure.locator("svg").text_content()
    assert figure.locator("svg").bounding_box()["width"] > 300
    # No console error, CSP refusals included.
    assert problems.errors == []


def test_a_page_without_diagrams_does_not_load_mermaid(open_page):
    page, problems = open_page(MATH_POST)
    loaded = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name)"
    )
    assert any(url.endswith(".css") for url in loaded), loaded
    assert not [url for url in loaded if "mermaid" in url]
    assert page.evaluate("() => typeof window.mermaid") == "undefined"
    assert problems.errors == []


def test_a_diagram_follows_the_theme(open_page):
    light, _ = open_page(DIAGRAM_POST, color_scheme="light")
    light.locator(DRAWN).wait_for(timeout=15_000)
    dark, problems = open_page(DIAGRAM_POST, color_scheme="dark", viewport=PHONE)
    dark.locator(DRAWN).wait_for(timeout=15_000)
    light_fill, dark_fill = light.evaluate(BOX_FILL), dark.evaluate(BOX_FILL)
    assert light_fill != dark_fill
    # Switched by the reader: drawn again in the other colours.
    dark.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
    dark.wait_for_function(f"() => ({BOX_FILL})() === {light_fill!r}", timeout=15_000)
    assert problems.errors == []


def test_readers_without_javascript_get_the_source_as_code(new_context):
    page = new_context(java_script_enabled=False).new_page()
    page.goto(DIAGRAM_POST.path)
    code = page.locator("figure.block-diagram pre code")
    assert code.inner_text().startswith("flowchart LR\n")
    assert page.locator(DRAWN).count() == 0


def test_the_editor_draws_a_diagram_as_it_is_typed(admin_page):
    page, problems = add_post_form(admin_page, viewport=PHONE, color_scheme="dark")
    add_block(page, "图表")
    source = page.locator('.diagram-block textarea[name$="-source"]')
    preview = page.locator(".diagram-block [data-diagram-preview]")
    source.press_sequentially("flowchart LR\n  A[共享内存] --> B[寄存器]")
    preview.locator("svg").wait_for(timeout=15_000)
    assert "寄存器" in preview.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    block = page.locator(".diagram-block")
    block.screenshot(path=SHOTS / "editor-drawn-390-dark.png")

    source.press_sequentially(" --> -->")
    preview.locator(".diagram-preview-error").wait_for(timeout=15_000)
    assert preview.locator("svg").count() == 0
    block.screenshot(path=SHOTS / "editor-error-390-dark.png")
    assert unexpected(problems) == []
