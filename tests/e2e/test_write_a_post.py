"""An editor writes a post in the real admin and publishes it: readers see it at once.

Chinese title, a paragraph with inline math, a display formula and a CUDA
code block, published from the add form the moment it is written (an
autosave may still be on its way). The post's page, its section and home
show it on the next request, typeset, and the admin logged no error.
"""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from scripts.support.servers import manage
from tests.e2e.admin import open_editor

pytestmark = pytest.mark.e2e

TITLE = "共享内存的 bank 冲突"
SECTION_ID = """
from blog.models import SeriesPage
print(SeriesPage.objects.get(slug="cuda", depth=3).pk)
"""


BLOCKS_ADDED = """(before) =>
    Number(document.querySelector("input[name='body-count']").value) > before"""


def add_block(page, name, index):
    """Add a block of type ``name`` at ``index``, and wait until the form has it.

    Under CI's load a click on the chooser's option has been seen to land
    before the chooser took it; the block is then asked for again, once.
    """
    before = int(page.input_value("input[name='body-count']"))
    for attempt in (1, 2):
        page.locator("#body-root button.c-sf-add-button").nth(index).click()
        page.get_by_role("option", name=name, exact=True).first.click()
        try:
            page.wait_for_function(BLOCKS_ADDED, arg=before, timeout=10_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")  # the chooser, if it stayed open


def test_a_post_written_and_published_in_the_admin_shows_to_readers_at_once(
    new_context, admin_page, demo_server
):
    section = manage(demo_server.env, "shell", "-c", SECTION_ID).split()[-1]
    reader = new_context()
    home_before = reader.new_page().goto("/").text()
    assert TITLE not in home_before  # and home is now in the page cache

    page, problems = admin_page()
    open_editor(page, f"/admin/pages/add/blog/postpage/{section}/")
    page.fill("#id_title", TITLE)
    page.fill("#id_summary", "32 个 bank 与 $2^k$ 步长")

    add_block(page, "段落", 0)
    paragraph = page.locator("[data-contentpath='body'] .DraftEditor-root").first
    paragraph.click()
    page.keyboard.type("步长为 $2^k$ 时冲突最多。")
    add_block(page, "公式", 1)
    page.locator("textarea[name='body-1-value-tex']").fill(
        r"\text{bank} = \left\lfloor \frac{addr}{4} \right\rfloor \bmod 32"
    )
    add_block(page, "代码", 2)
    page.select_option("select[name='body-2-value-language']", "cuda")
    page.locator(".cm-content").click()
    page.keyboard.type("__shared__ float tile[32][33];")

    # Autosave creates the draft as the editor types and points the form
    # at its edit view; a click while that request is in flight would
    # post the add form a second time (Wagtail's race, not ours), so
    # publish once the form has moved, as an editor's pause allows.
    page.wait_for_function(
        "() => document.getElementById('page-edit-form').action.includes('/edit/')",
        timeout=20_000,
    )
    # Publish: the dropdown of the save button.
    page.locator("footer [data-w-dropdown-target='toggle']").first.click()
    with page.expect_navigation():
        page.get_by_role("button", name="发布").first.click()
    assert "已经发布" in page.locator(".messages").inner_text()

    post = reader.new_page()
    response = post.goto("/cuda/")
    assert TITLE in response.text()
    assert TITLE in post.goto("/").text()  # purged, not the cached home
    link = post.locator(f"a:has-text('{TITLE}')").first
    post.goto(link.get_attribute("href"))
    assert post.locator("h1").inner_text() == TITLE
    assert post.locator(".block-paragraph .katex").count() == 1
    assert post.locator(".katex-display").count() == 1
    assert "tile[32][33]" in post.locator(".highlight").inner_text()
    assert problems.errors == []
