"""A reader comments on a demo post; it waits for a moderator, then shows typeset.

The reader posts a comment with inline math and is told it is held; a
moderator logs into the Wagtail admin, opens 评论 and approves it; the post's
page (purged) shows it with the formula typeset by the server. A reply is
held in turn and, once approved, shows nested under its comment.
Screenshots of the comment section and of the admin's list, desktop and
phone, light and dark, go to test-artifacts/issue24/comments/.
"""

import pytest

from tests.e2e.ci import ARTIFACTS
from tests.e2e.conftest import PageProblems
from tests.e2e.pages import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

POST = "/cuda/bank-conflict-swizzle/"  # front matter `comments: true`
SHOTS = ARTIFACTS / "issue24" / "comments"
COMMENT = "步长为 $2^k$ 时冲突最多，**讲得清楚**。"
REPLY = "同意，$s = 2^k$ 时 padding 一列就好。"


def send(page, name, text):
    form = page.locator(".comment-form")
    form.get_by_label("称呼").fill(name)
    form.get_by_label("评论").fill(text)
    form.get_by_role("button", name="提交评论").click()
    page.get_by_role("heading", name="评论已提交，审核后显示").wait_for()


def approve(admin, text):
    admin.goto("/admin/")
    admin.get_by_role("link", name="评论").first.click()
    admin.wait_for_url("**/admin/comments/")
    row = admin.locator("tr", has_text=text)
    row.get_by_role("button", name="批准").click()
    admin.locator(".messages", has_text="已批准 1 条评论").wait_for()


def test_a_comment_is_held_approved_in_the_admin_and_shown_typeset(
    new_context, admin_page
):
    reader = new_context().new_page()
    problems = PageProblems(reader)
    reader.goto(POST)
    reader.goto(POST)  # now from the page cache
    section = reader.locator("#comments")
    assert "还没有评论" in section.inner_text()

    send(reader, "读者甲", COMMENT)
    reader.goto(POST)
    assert "讲得清楚" not in reader.locator("#comments").inner_text()

    admin, _ = admin_page()
    approve(admin, "讲得清楚")

    reader.goto(POST)
    comment = reader.locator(".comment", has_text="讲得清楚").first
    assert comment.locator(".comment-author").inner_text() == "读者甲"
    assert comment.locator(".comment-body strong").inner_text() == "讲得清楚"
    assert comment.locator(".katex annotation").first.text_content() == "2^k"
    assert comment.locator(".katex-html").first.is_visible()
    assert "$2^k$" not in comment.inner_text()

    comment.get_by_role("link", name="回复").click()
    assert "讲得清楚" in reader.locator(".comment-parent").inner_text()
    send(reader, "读者乙", REPLY)
    approve(admin, "padding 一列")

    reader.goto(POST)
    nested = reader.locator(".comment", has_text="讲得清楚").locator(
        ".comment-replies .comment"
    )
    assert "padding 一列就好" in nested.inner_text()
    assert nested.locator(".katex").count() == 1
    assert reader.locator(".comments-count").inner_text() == "2 条"
    assert problems.errors == []


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_screenshots_of_the_comments_and_the_admin_list(
    new_context, admin_page, color_scheme, viewport
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    suffix = f"{viewport['width']}-{color_scheme}"
    page = new_context(viewport=viewport, color_scheme=color_scheme).new_page()
    problems = PageProblems(page)
    page.goto(POST)
    section = page.locator("#comments")
    section.scroll_into_view_if_needed()
    section.screenshot(path=SHOTS / f"comments-{suffix}.png")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"]
    assert problems.errors == []

    admin, _ = admin_page(viewport=viewport, color_scheme=color_scheme)
    admin.goto("/admin/comments/?state=public")
    admin.screenshot(path=SHOTS / f"admin-comments-{suffix}.png")
