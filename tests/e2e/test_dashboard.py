"""The writing dashboard in a real Chromium: a bad formula's row opens its block."""

import pytest
from playwright.sync_api import expect

from tests.e2e.ci import ARTIFACTS
from tests.e2e.pages import DESKTOP, PHONE

pytestmark = pytest.mark.e2e

USERNAME, PASSWORD = "dashboard-editor", "a-long-passphrase-for-the-dashboard"  # noqa: S105
BAD_TEX = r"\frac{1}{"
# Enough prose before the formula that the block starts well below the fold.
IMPORTED = (
    "---\ntitle: 仪表盘测试：导入的坏公式\n---\n\n"
    + "\n\n".join(f"第 {n} 段：共享内存与 bank conflict。" for n in range(40))
    + f"\n\n$$\n{BAD_TEX}\n$$\n\n最后一段，见[已删除的旧文](/notes/no-such-post/)。\n"
)
SHOTS = ARTIFACTS / "dashboard"


@pytest.fixture(scope="module")
def editor_login(demo_server, tmp_path_factory):
    """An editor (Wagtail's "Editors" group), and a draft imported with a bad formula.

    The dashboard is the editors' page: this module logs in as one, not as the
    superuser tests/e2e/conftest.py gives the other modules.
    """
    demo_server.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; "
        "from django.contrib.auth.models import Group; "
        f"u = get_user_model().objects.create_user({USERNAME!r}, "
        f"'dashboard@example.com', {PASSWORD!r}); "
        "u.groups.add(Group.objects.get(name='Editors'))",
    )
    vault = tmp_path_factory.mktemp("dashboard-vault")
    (vault / "dashboard-bad-formula.md").write_text(IMPORTED, encoding="utf-8")
    demo_server.manage("import_markdown", str(vault), "--parent", "/notes/", "--draft")
    return USERNAME, PASSWORD


def test_a_bad_formula_row_opens_the_editor_at_its_block(admin_page):
    page, problems = admin_page()
    formulas = page.locator("table[aria-labelledby=writing-formulas]")
    row = formulas.locator("tr", has=page.locator("code", has_text=BAD_TEX))
    expect(row).to_have_count(1)
    expect(row.locator("td.title a")).to_have_text("仪表盘测试：导入的坏公式 · 公式")

    row.locator("td.title a").click()
    page.wait_for_url("**/edit/#block-*-section")
    block_id = page.url.split("#block-")[1].removesuffix("-section")

    block = page.locator(f"#block-{block_id}-section")
    expect(block).to_be_in_viewport()
    expect(block.locator("textarea").first).to_have_value(BAD_TEX)
    assert problems.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_dashboard_screenshots(admin_page, scheme, viewport):
    page, problems = admin_page(color_scheme=scheme, viewport=viewport)
    panel = page.locator("#writing-section")
    expect(panel.locator("#writing-formulas")).to_contain_text("有错误的公式")
    SHOTS.mkdir(parents=True, exist_ok=True)
    width = viewport["width"]
    page.screenshot(path=SHOTS / f"dashboard-{width}-{scheme}.png")
    # The admin scrolls inside its main column: the whole panel is shot in a
    # window tall enough to hold it.
    page.set_viewport_size({"width": width, "height": 3200})
    panel.screenshot(path=SHOTS / f"dashboard-{width}-{scheme}-panel.png")
    assert problems.errors == []
