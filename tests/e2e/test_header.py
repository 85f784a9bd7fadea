"""The header on one row with a real vault's thirteen sections, at 1280 and 390 px.

A server of its own: the demo's three sections, renamed as a real vault names
them, and ten more imported from Markdown. The sections that do not fit the
row are in 更多, reached with the keyboard.
"""

import pytest

from scripts.support.pages import ARCHIVE, HOME
from scripts.support.servers import DemoServer
from tests.e2e.conftest import EXPLORER_LOADED
from tests.e2e.pages import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

# The demo's sections, renamed, then ten imported: thirteen in all.
RENAMED = {"cuda": "CUDA 编程", "llm_inference": "LLM Inference", "notes": "Notes"}
IMPORTED = {
    "mlsys": "MLSys 论文",
    "quant": "量化",
    "triton": "Triton",
    "distributed": "分布式训练",
    "csapp": "CSAPP",
    "os": "操作系统",
    "compilers": "编译器",
    "gpu": "GPU 架构",
    "tools": "工具",
    "essays": "随笔",
}
SECTIONS = ["CUDA 编程", "LLM Inference", "Notes", *IMPORTED.values()]
RENAME = "\n".join(
    f"SeriesPage.objects.filter(slug={slug!r}).update(title={title!r})"
    for slug, title in RENAMED.items()
)

ROW = ".site-nav .nav-row"
MORE = ".site-nav .nav-more"


@pytest.fixture(scope="module")
def thirteen_sections(chromium_path, tmp_path_factory):
    vault = tmp_path_factory.mktemp("thirteen-sections")
    for n, (slug, title) in enumerate(IMPORTED.items()):
        folder = vault / slug
        folder.mkdir()
        (folder / "index.md").write_text(
            f"---\ntitle: {title}\nslug: {slug}\nweight: {n + 4}\n---\n",
            encoding="utf-8",
        )
        (folder / "first.md").write_text(
            f"---\ntitle: {title} 第一篇\ndate: 2025-01-0{n % 9 + 1}\n---\n\n正文。\n",
            encoding="utf-8",
        )
    with DemoServer("tests.e2e.settings", imports=[(vault, "/")]) as server:
        server.manage("shell", "-c", "from blog.models import SeriesPage\n" + RENAME)
        yield server


@pytest.fixture
def open_header(new_context, thirteen_sections):
    def open_(path, viewport, color_scheme="light"):
        page = new_context(
            base_url=thirteen_sections.url, viewport=viewport, color_scheme=color_scheme
        ).new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        assert page.goto(path).status == 200
        page.wait_for_function(EXPLORER_LOADED, timeout=10_000)
        return page, errors

    return open_


def row_height(page) -> float:
    """Return the header's height if each item were alone on one row."""
    return page.evaluate(
        """() => {
        const inner = document.querySelector('.header-inner');
        const style = getComputedStyle(inner);
        const tallest = Math.max(...[...inner.children]
            .filter(e => e.getBoundingClientRect().height > 0)
            .map(e => e.getBoundingClientRect().height));
        const header = document.querySelector('.site-header');
        return tallest + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
            + parseFloat(getComputedStyle(header).borderBottomWidth);
    }"""
    )


def shown_in_row(page) -> list[str]:
    return page.locator(f"{ROW} li:visible a").all_inner_texts()


def listed_in_more(page) -> list[str]:
    return page.locator(f"{MORE} li:not(.nav-site-link) a").evaluate_all(
        "links => links.filter(a => !a.closest('li').hidden).map(a => a.textContent)"
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("path", [HOME.path, ARCHIVE.path, "/notes/"])
def test_thirteen_sections_stay_on_one_row(open_header, viewport, path):
    page, errors = open_header(path, viewport)
    header = page.locator(".site-header").bounding_box()
    assert header["height"] == pytest.approx(row_height(page), abs=1)
    assert header["height"] < 70
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    # Every section is either on the row or in 更多, never both, in order.
    row, more = shown_in_row(page), listed_in_more(page)
    assert more, "13 sections do not all fit"
    assert row + more == SECTIONS
    # Each shown link is inside the visible row, not clipped.
    clip = page.locator(ROW).bounding_box()
    for link in page.locator(f"{ROW} li:visible a").all():
        box = link.bounding_box()
        assert box["x"] + box["width"] <= clip["x"] + clip["width"] + 1
        assert box["y"] + box["height"] <= clip["y"] + clip["height"] + 1
    assert errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_more_opens_from_the_keyboard_onto_the_sections_that_do_not_fit(
    open_header, viewport
):
    page, errors = open_header(HOME.path, viewport)
    summary = page.locator(f"{MORE} > summary")
    assert summary.is_visible()
    hidden = listed_in_more(page)
    # Tab from the site title: the row's links, then 更多.
    page.locator(".site-title").focus()
    for _ in range(len(shown_in_row(page)) + 2):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "SUMMARY":
            break
    assert page.evaluate("document.activeElement.textContent") == "更多"
    page.keyboard.press("Enter")
    menu = page.locator(f"{MORE} > ul")
    assert menu.is_visible()
    for name in hidden:
        assert menu.get_by_role("link", name=name, exact=True).is_visible()
    # The first section that does not fit is the next stop, and it leads there.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == hidden[0]
    page.keyboard.press("Escape")
    assert not menu.is_visible()
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("h1").inner_text() == hidden[0]
    assert errors == []


def test_without_javascript_more_lists_every_section(new_context, thirteen_sections):
    page = new_context(
        base_url=thirteen_sections.url, java_script_enabled=False
    ).new_page()
    page.goto("/")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 70
    page.locator(f"{MORE} > summary").click()
    names = page.locator(f"{MORE} li:not(.nav-site-link) a").all_inner_texts()
    assert names == SECTIONS
    assert page.locator(f"{MORE} li a").first.is_visible()
