"""The reading aids on a post: table of contents, theme toggle, copy button.

The selectors below are the one place that names the markup; change them here
if the templates name things differently.
"""

import pytest

from tests.e2e.pages import FIGURE_POST, HOME, MATH_POST
from tests.e2e.test_pages import BACKGROUND_LUMINANCE
from vault.importer.body import parse_body
from vault.importer.frontmatter import split_document
from vault.management.commands.load_demo import CONTENT

pytestmark = pytest.mark.e2e

TOC_LINKS = ".toc a[href^='#'], nav[aria-label*='目录'] a[href^='#']"
THEME_TOGGLE = "[data-theme-toggle], .theme-toggle, #theme-toggle"
COPY_BUTTON = "figure.block-code button"

# The heading a TOC link points at is at the top of the viewport, below a
# sticky header if there is one; at the end of the page, visible is enough.
HEADING_IS_IN_PLACE = """(id) => {
    const heading = document.getElementById(id);
    if (!heading) return false;
    const top = heading.getBoundingClientRect().top;
    const atBottom = window.innerHeight + window.scrollY
        >= document.documentElement.scrollHeight - 2;
    return (top >= -2 && top <= 150) || (atBottom && top >= 0
        && top < window.innerHeight);
}"""

THEME = "document.documentElement.dataset.theme || document.body.dataset.theme || ''"


def test_toc_links_move_to_their_headings(open_page):
    page, problems = open_page(MATH_POST)
    links = page.locator(TOC_LINKS)
    count = links.count()
    assert count >= 3, f"expected a TOC with links, found {count} ({TOC_LINKS})"

    for index in sorted({0, count // 2, count - 1}):
        link = links.nth(index)
        target = link.get_attribute("href")[1:]
        link.click()

        page.wait_for_function(HEADING_IS_IN_PLACE, arg=target, timeout=3000)
        assert page.evaluate("decodeURIComponent(location.hash.slice(1))") == (
            page.evaluate("(h) => decodeURIComponent(h)", target)
        )
    assert problems.errors == []


def test_theme_toggle_switches_to_dark_and_survives_a_reload(open_page):
    page, problems = open_page(HOME, color_scheme="light")
    toggle = page.locator(THEME_TOGGLE).first
    assert page.evaluate(BACKGROUND_LUMINANCE) > 0.8

    # A toggle may cycle (auto → light → dark): click until the page is dark.
    for _ in range(3):
        toggle.click()
        if page.evaluate(BACKGROUND_LUMINANCE) < 0.2:
            break
    theme = page.evaluate(THEME)
    assert page.evaluate(BACKGROUND_LUMINANCE) < 0.2
    assert theme == "dark"

    page.reload()
    assert page.evaluate(THEME) == "dark"
    assert page.evaluate(BACKGROUND_LUMINANCE) < 0.2
    # And it follows the reader to the next page.
    page.goto(MATH_POST.path)
    assert page.evaluate(BACKGROUND_LUMINANCE) < 0.2
    assert problems.errors == []


def first_code_of(source):
    """Return the source of the first code block of a demo Markdown file."""
    document = split_document((CONTENT / source).read_text("utf-8"))
    body = parse_body(document.body, title=document.front.title)
    return next(block.value["code"] for block in body.blocks if block.type == "code")


def test_copy_button_copies_the_code(open_page):
    first_code = first_code_of("cuda/flashattention-v1-v4.md")
    page, problems = open_page(
        MATH_POST, permissions=("clipboard-read", "clipboard-write")
    )
    page.evaluate("navigator.clipboard.writeText('')")

    page.locator(COPY_BUTTON).first.click()

    page.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.rstrip("\n") == first_code.rstrip("\n")
    assert problems.errors == []


def test_a_figure_runs_its_script_in_its_own_sandboxed_document(open_page):
    page, problems = open_page(FIGURE_POST)
    policy = page.evaluate(
        "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
    )
    # The page itself allows no inline script, not even the figure's.
    script_src = policy.split("script-src")[1].split(";")[0]
    assert "'unsafe-inline'" not in script_src
    assert "sha256-" not in script_src
    # The figure is a document at its own URL, with a policy of its own.
    src = page.locator("figure.block-html-figure iframe").first.get_attribute("src")
    assert "/figures/" in src
    figure_policy = page.evaluate(
        "(src) => fetch(src).then(r => r.headers.get('content-security-policy'))", src
    )
    assert "sandbox allow-scripts" in figure_policy
    assert "sha256-" in figure_policy.split("script-src")[1].split(";")[0]
    frame = page.frame_locator("figure.block-html-figure iframe")
    # The figure's inline script draws the banks and writes its verdict.
    assert frame.locator("#verdict").text_content(timeout=5000) == "无冲突：一次完成"
    frame.locator("#stride").fill("2")
    assert frame.locator("#verdict").text_content() == "2-way bank conflict：串行 2 次"
    # It runs in an opaque origin, not the site's.
    figure = next(f for f in page.frames if "/figures/" in f.url)
    assert figure.evaluate("window.origin") == "null"
    # A blocked script would be a console error ("Refused to execute…").
    assert problems.errors == []


def test_a_figure_still_runs_when_the_browser_revalidates_the_page(open_page):
    # The reload is answered 304 (the page and the figure's document): the
    # policy the browser keeps must still allow the figure's script.
    page, problems = open_page(FIGURE_POST)
    page.wait_for_load_state("networkidle")
    page.reload(wait_until="networkidle")
    frame = page.frame_locator("figure.block-html-figure iframe")
    assert frame.locator("#verdict").text_content(timeout=5000) == "无冲突：一次完成"
    assert [e for e in problems.errors if "Content Security Policy" in e] == []
