"""The explorer and 最近更新 beside every page; the menu that holds them at 390 px.

The selectors below are the one place that names the markup.
"""

import pytest

from tests.e2e.pages import (
    ARCHIVE,
    DESKTOP,
    HOME,
    MATH_POST,
    NOT_FOUND,
    PAGES,
    PHONE,
    SEARCH,
    SERIES,
    TAG,
    TAG_INDEX,
    page_params,
)

pytestmark = pytest.mark.e2e

SIDEBAR = "#site-sidebar"
EXPLORER = ".explorer"
RECENT = ".recent-updates li a"
MENU = ".menu-toggle"
# Pages outside the folder tree: no folder is open there.
OUTSIDE = {HOME, TAG_INDEX, TAG, ARCHIVE, SEARCH, NOT_FOUND}


def path_of(page):
    return page.evaluate("location.pathname")


@pytest.mark.parametrize("demo_page", page_params(PAGES))
def test_every_page_has_the_explorer_and_recent_updates(open_page, demo_page):
    page, problems = open_page(demo_page)
    explorer = page.locator(f"{SIDEBAR} {EXPLORER}")
    assert explorer.is_visible()
    assert page.locator(f"{EXPLORER} .explorer-folder").count() >= 3
    assert page.locator(f"{EXPLORER} .explorer-folder-link").first.is_visible()
    assert page.locator(RECENT).count() >= 5
    # 最近更新 is shown once: home's own list is it, so the sidebar's is not.
    assert page.get_by_role("heading", name="最近更新", exact=True).count() == 1
    assert page.locator(".recent-updates").is_visible() == (demo_page != HOME)
    opened = page.locator(f"{EXPLORER} .explorer-folder:has(> details[open]) > a")
    hrefs = [opened.nth(i).get_attribute("href") for i in range(opened.count())]
    if demo_page not in OUTSIDE:
        here = path_of(page)
        # The page is marked, and every folder open is one of its ancestors.
        marked = page.locator(f"{EXPLORER} a[aria-current='page']")
        assert marked.count() == 1
        assert page.evaluate("decodeURI(location.pathname)") == (
            page.evaluate(
                "decodeURI(document.querySelector(\".explorer a[aria-current='page']\")"
                ".getAttribute('href'))"
            )
        )
        assert hrefs and all(here.startswith(href) for href in hrefs), hrefs
        # Its folder's posts are listed, folders off its path are not opened.
        assert page.locator(f"{EXPLORER} details[open] .explorer-post").count() >= 1
    else:
        assert hrefs == []
    assert problems.errors == []


def test_on_a_phone_the_menu_button_opens_and_closes_the_sidebar(open_page):
    page, problems = open_page(MATH_POST, viewport=PHONE)
    button = page.locator(MENU)
    sidebar = page.locator(SIDEBAR)
    assert button.is_visible() and not sidebar.is_visible()
    # The header's sections that do not fit are in its 更多 (tests/e2e/test_header.py).
    assert page.locator(".site-nav .nav-more > summary").is_visible()
    assert button.get_attribute("aria-expanded") == "false"
    top = page.locator("main").bounding_box()["y"]

    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    assert sidebar.is_visible()
    # The sections, 标签 and 归档 are in it.
    for name in ["CUDA", "笔记", "标签", "归档"]:
        assert page.locator(SIDEBAR).get_by_role("link", name=name).first.is_visible()
    assert page.locator(f"{SIDEBAR} a[aria-current='page']").first.is_visible()

    page.keyboard.press("Escape")
    assert button.get_attribute("aria-expanded") == "false"
    assert not sidebar.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")
    button.click()
    assert sidebar.is_visible()
    button.click()
    assert not sidebar.is_visible()
    assert page.locator("main").bounding_box()["y"] == top
    assert problems.errors == []


def test_on_desktop_there_is_no_menu_button(open_page):
    page, _ = open_page(SERIES, viewport=DESKTOP)
    assert not page.locator(MENU).is_visible()
    box = page.locator(SIDEBAR).bounding_box()
    main = page.locator("main").bounding_box()
    assert box["x"] + box["width"] <= main["x"]


def test_the_toc_marks_the_section_being_read(open_page):
    page, problems = open_page(MATH_POST)
    links = page.locator(".toc-list a")
    assert links.count() >= 3
    last = links.nth(links.count() - 2)
    target = last.get_attribute("href")
    page.evaluate(
        "(id) => document.getElementById(decodeURIComponent(id)).scrollIntoView()",
        target[1:],
    )
    page.wait_for_function(
        "(href) => document.querySelector(`.toc-list a[href='${href}']`)"
        ".classList.contains('is-current')",
        arg=target,
    )
    first = links.nth(0)
    assert "is-current" not in (first.get_attribute("class") or "")
    assert page.locator(".toc-list a.is-current").count() == 1
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate(
        "(id) => document.getElementById(decodeURIComponent(id)).scrollIntoView()",
        first.get_attribute("href")[1:],
    )
    page.wait_for_function(
        "() => document.querySelector('.toc-list a').classList.contains('is-current')"
    )
    assert problems.errors == []


def folder(page, href):
    return page.locator(f"{EXPLORER} .explorer-folder:has(> a[href='{href}'])")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_opening_a_folder_off_the_path_shows_its_posts(open_page, viewport):
    page, problems = open_page(MATH_POST, viewport=viewport)
    if viewport is PHONE:
        page.locator(MENU).click()
    csapp = folder(page, "/notes/csapp/")
    assert csapp.locator(".explorer-post").count() == 0
    # Open 笔记, then CSAPP in it, from the keyboard: its posts come in.
    folder(page, "/notes/").locator(":scope > details > summary").click()
    summary = csapp.locator(":scope > details > summary")
    summary.focus()
    page.keyboard.press("Enter")
    posts = csapp.locator(".explorer-post a")
    posts.first.wait_for()
    names = posts.all_inner_texts()
    assert len(names) == 6 and any("链接" in name for name in names), names
    # 笔记's own posts came in after its folder, not instead of it.
    notes = folder(page, "/notes/")
    assert notes.locator(":scope > details > ul > .explorer-folder").count() >= 1
    # Closed and opened again: loaded once.
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    assert posts.count() == 6
    with page.expect_navigation():
        posts.first.click()
    assert "/notes/csapp/" in path_of(page)
    assert problems.errors == []
