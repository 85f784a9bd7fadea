"""The editor's pages log nothing to the console, autosaving or starting over.

A post's and a series' edit pages and the add form load without a console
error, an exception or a failed request; typing autosaves, and an autosave the
form refuses (a date before the publication date) pauses without one either.
Starting a post over offers the draft autosave kept. Screenshots of the edit
page and of the offer, desktop and phone, light and dark, go to
test-artifacts/admin-hygiene/.
"""

import pytest

from scripts.support.servers import manage
from tests.e2e.ci import ARTIFACTS
from tests.e2e.pages import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

SHOTS = ARTIFACTS / "admin-hygiene"
# A post with a table block (Handsontable), a series, and where posts are added.
POST_PATH, SERIES_PATH = "/home/cuda/flashattention-v1-v4/", "/home/notes/csapp/"


@pytest.fixture(scope="module")
def admin_urls(demo_server):
    script = (
        "from wagtail.models import Page; "
        f"print(Page.objects.get(url_path={POST_PATH!r}).pk, "
        f"Page.objects.get(url_path={SERIES_PATH!r}).pk, "
        "Page.objects.get(url_path='/home/cuda/').pk)"
    )
    output = manage(demo_server.env, "shell", "-c", script)
    post, series, section = output.strip().splitlines()[-1].split()
    return {
        "post": f"/admin/pages/{post}/edit/",
        "series": f"/admin/pages/{series}/edit/",
        "add": f"/admin/pages/add/blog/postpage/{section}/",
    }


def load(page, url):
    page.goto(url)
    page.wait_for_load_state("networkidle")
    # Wagtail reads the form's first state two seconds after load; edits made
    # before that would not count as changes, and nothing would autosave.
    page.wait_for_timeout(2500)


def autosave(page, field, value):
    """Type ``value`` into ``field`` and return Wagtail's autosave answer."""
    with page.expect_response(
        lambda response: (
            response.request.method == "POST"
            and "/admin/pages/" in response.url
            and "application/json" in (response.request.headers.get("accept") or "")
        ),
        timeout=15000,
    ) as answer:
        page.fill(field, value)
        # Leaving the title fills the slug from it, as for an editor.
        page.press(field, "Tab")
    return answer.value.json()


def start_post(page, url, title):
    """Type a new post's title in the add form; wait until autosave made it a draft.

    Wagtail then turns the add form into the draft's edit form (hydration);
    return the draft's edit URL.
    """
    load(page, url)
    with page.expect_response(
        lambda response: "_w_hydrate_create_view" in response.url, timeout=15000
    ):
        assert autosave(page, "#id_title", title)["success"] is True
    page.wait_for_url("**/edit/")
    # The edit form's own first state, as after a load.
    page.wait_for_timeout(2500)
    return page.url.split("#")[0].removeprefix(page.url.split("/admin/")[0])


def test_edit_pages_and_the_add_form_load_without_console_errors(
    admin_page, admin_urls
):
    page, problems = admin_page()
    for name in ("post", "series", "add"):
        load(page, admin_urls[name])
        assert page.locator("form [name=title]").count() == 1, name
        assert problems.errors == [], name


def test_autosave_accepted_and_refused_logs_no_error(admin_page, admin_urls):
    page, problems = admin_page()
    start_post(page, admin_urls["add"], "控制台干净的自动保存")

    refused = autosave(page, "#id_updated", "2000-01-01")

    assert refused["success"] is False
    assert refused["error_code"] == "validation_error"
    assert problems.errors == []


def test_starting_over_offers_the_draft_autosave_kept(admin_page, admin_urls):
    page, problems = admin_page()
    draft_url = start_post(page, admin_urls["add"], "重新开始的文章")

    # The editor leaves, then starts the same post over.
    load(page, admin_urls["add"])
    offer = page.locator(".messages li", has_text="重新开始的文章")
    assert "未发布的草稿" in offer.inner_text()
    assert offer.get_by_role("link", name="继续编辑草稿").get_attribute("href") == (
        draft_url
    )
    # Typing the same title is refused by autosave, quietly, with the reason.
    refused = autosave(page, "#id_title", "重新开始的文章")
    assert refused["success"] is False
    assert problems.errors == []

    offer.get_by_role("link", name="继续编辑草稿").click()
    page.wait_for_url(f"**{draft_url}")
    assert page.locator("#id_title").input_value() == "重新开始的文章"


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_screenshots_of_the_edit_page_and_the_offer(
    admin_page, admin_urls, color_scheme, viewport
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page, problems = admin_page(color_scheme=color_scheme, viewport=viewport)
    suffix = f"{viewport['width']}-{color_scheme}"

    load(page, admin_urls["post"])
    page.screenshot(path=SHOTS / f"edit-post-{suffix}.png")
    title = f"截图用的草稿 {suffix}"
    start_post(page, admin_urls["add"], title)
    load(page, admin_urls["add"])
    page.locator(".messages li", has_text=title).wait_for()
    page.screenshot(path=SHOTS / f"start-over-{suffix}.png")
    assert problems.errors == []
