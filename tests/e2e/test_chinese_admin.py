"""What Wagtail's JavaScript draws in the editor is Chinese too, in a real Chromium.

The server-rendered text is checked in tests/blog/admin/test_chinese_admin.py;
here the browser asks for English (``locale="en-US"``), and the strings drawn
only by scripts (the empty paragraph's placeholder, the block chooser, the
content checks panel) are read from the live page.
"""

import pytest

from tests.blog.admin.test_chinese_admin import english_in

pytestmark = pytest.mark.e2e


def visible_text(page):
    """Return the lines an editor sees, and the placeholders and tooltips."""
    return page.evaluate(
        """() => [
            ...document.body.innerText.split("\\n"),
            ...[...document.querySelectorAll("[placeholder], [title]")]
                .filter((el) => el.checkVisibility())
                .flatMap((el) => [el.placeholder || "", el.title || ""]),
        ]"""
    )


def test_the_editors_scripts_speak_chinese_to_an_english_browser(
    admin_page, editor_login
):
    page, _ = admin_page(locale="en-US")

    # A new post under the home page (the site root's only child).
    page.goto("/admin/pages/")
    home = page.locator("a[href*='/admin/pages/'][href$='/edit/']").first
    home_id = home.get_attribute("href").rstrip("/").split("/")[-2]
    page.goto(f"/admin/pages/add/blog/postpage/{home_id}/")
    page.wait_for_load_state("networkidle")

    # Insert a paragraph through the block chooser: its menu, then the
    # empty paragraph with Draftail's placeholder (drawn by CSS ::before).
    page.locator("button.c-sf-add-button").first.click()
    chooser = page.get_by_role("option", name="段落")
    chooser.wait_for()
    shown = visible_text(page)
    chooser.click()
    empty = page.locator(".Draftail-block--empty").first
    empty.wait_for()
    placeholder = empty.evaluate("el => getComputedStyle(el, '::before').content")
    assert placeholder == '"写点什么，或输入“/”插入块"'

    # The content checks panel, whose metrics a script works out.
    page.locator("[data-side-panel-toggle='checks']").click()
    page.wait_for_timeout(500)

    leftovers = english_in(shown + visible_text(page), {editor_login[0]})
    assert not leftovers, "English drawn by the editor's scripts:\n" + "\n".join(
        leftovers
    )
