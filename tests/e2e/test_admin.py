"""The Wagtail admin under the site's Content-Security-Policy, in a real Chromium.

The login page keeps the site's policy; behind it, the inline scripts Wagtail
writes into each page are allowed by their hashes (serving/security.py), and
nothing the editor needs is blocked.
"""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.admin import log_in
from tests.e2e.conftest import PageProblems
from tests.e2e.pages import FIGURE_POST

pytestmark = pytest.mark.e2e


def test_the_editor_works_under_the_sites_policy(new_context, editor_login):
    page = new_context().new_page()
    problems = PageProblems(page)
    login = page.goto("/admin/login/")
    assert (
        "'unsafe-inline'"
        not in login.headers["content-security-policy"]
        .split("script-src")[1]
        .split(";")[0]
    )
    log_in(page, editor_login)

    page.goto("/admin/pages/")
    page.goto(FIGURE_POST.path)
    edit = page.locator("a[href*='/admin/pages/'][href$='/edit/']").first
    if edit.count():
        page.goto(edit.get_attribute("href"))
    else:  # no userbar link: find the post through the admin search
        page.goto("/admin/pages/search/?q=bank")
        page.locator("a[href$='/edit/']").first.click()
    page.wait_for_load_state("networkidle")
    # The editor's scripts ran: the StreamField blocks are drawn (a busy
    # machine may draw them after the network went quiet).
    stream = page.locator("[data-streamfield-stream-container]").first
    try:
        stream.wait_for(state="attached", timeout=30_000)
    except PlaywrightTimeoutError:
        pytest.fail(f"no StreamField drawn at {page.url}: {problems.errors}")
    # Wagtail's table block logs that Handsontable has no zh-hans strings;
    # anything the policy blocked, or any script error, is a failure.
    blocked = [e for e in problems.errors if "Content Security Policy" in e]
    assert blocked == []
    assert [e for e in problems.errors if e.startswith("exception:")] == []
