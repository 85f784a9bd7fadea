"""Formulas on import: escapes repaired, bad ones kept with a warning, limits."""

import json
import re
import shutil

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from wagtail.test.utils.form_data import nested_form_data, streamfield

from blog.models import PostPage
from rendering import cache
from tests.math_bombs import MACRO_BOMB
from tests.vault.importer.conftest import FIXTURES
from tests.vault.importer.runs import line_of, outcomes, post

pytestmark = pytest.mark.django_db

SOURCE = "escaped-math.md"


@pytest.fixture
def math_vault(tmp_path):
    root = tmp_path / "math"
    shutil.copytree(FIXTURES / "math", root)
    return root


def formulas(html: str) -> list[str]:
    """Return the TeX source of every typeset formula on the page, in order."""
    soup = BeautifulSoup(html, "html.parser")
    return [
        " ".join(span.find("annotation").get_text().split())
        for span in soup.select(".post-body .katex")
    ]


def test_escaped_formulas_import_repaired_and_a_bad_one_is_kept_with_a_warning(
    math_vault, run_import, client
):
    run = run_import(math_vault)

    assert run.error is None, run.out
    assert outcomes(run.out)["created"] == (1, 0)
    assert outcomes(run.out)["failed"] == (0, 0)
    bad_line = line_of(math_vault / SOURCE, "f(x) &=") - 1  # its opening $$
    assert (
        f"{SOURCE}:{bad_line}: formula kept with an error: KaTeX parse error: "
        "Expected 'EOF', got '&'"
    ) in run.out
    # Listed once at its file and line, and counted once under its kind.
    assert run.out.count(": formula kept with an error") == 1
    assert "  1  formula kept with an error: KaTeX parse error" in run.out

    html = client.get(post(SOURCE).url).content.decode()
    typeset = formulas(html)
    # Paragraph, table, display blocks, and a Markdown block (the list).
    for tex in (
        "X^*",
        "w*{new} = w - \\eta g",
        "e_{ij}^\\top",
        "\\mathbf{y} = \\mathbf{W}^\\top \\mathbf{x}",
        "L = \\sum_i \\ell_i + \\lambda \\lVert w \\rVert^2",
        "\\Sigma = \\begin{bmatrix} \\sigma_1^2 & 0 \\\\[4pt] 0 & \\sigma_2^2 "
        "\\end{bmatrix}",
        "g^* = 0",
        "w*{t+1} = w*{t} - \\eta \\nabla L",
    ):
        assert tex in typeset
    # The formula that stays invalid is shown as written, KaTeX's message on it.
    soup = BeautifulSoup(html, "html.parser")
    (error,) = soup.select(".post-body .math-error")
    assert error.get_text().strip() == "f(x) &= (x + 1)^2"
    assert error["title"].startswith("KaTeX parse error: Expected 'EOF', got '&'")
    assert "\\*" not in soup.select_one(".post-body").get_text()


def test_the_repairs_are_stored_in_the_blocks(math_vault, run_import):
    run_import(math_vault)
    body = post(SOURCE).body
    maths = [block.value["tex"] for block in body if block.block_type == "math"]
    assert "\\mathbf{y} = \\mathbf{W}^\\top \\mathbf{x}" in maths
    assert "f(x) &= (x + 1)^2" in maths  # kept as written
    (table,) = [block.value for block in body if block.block_type == "table"]
    assert table["data"][1][0] == "$e_{ij}^\\top$"
    (markdown,) = [block.value for block in body if block.block_type == "markdown"]
    assert "w*{t+1} = w*{t}" in markdown
    assert "$w\\_0$" in markdown  # valid as written: left alone


def test_the_admin_still_refuses_the_bad_formula_when_an_editor_saves_it(
    math_vault, run_import, admin_client
):
    run_import(math_vault)
    page = post(SOURCE)
    (bad,) = [
        block.value["tex"]
        for block in page.body
        if block.block_type == "math"
        and "&" in block.value["tex"]
        and "begin" not in block.value["tex"]
    ]
    data = nested_form_data(
        {
            "title": page.title,
            "slug": page.slug,
            "summary": "",
            "date": str(page.date),
            "updated": str(page.updated),
            "tags": "optimization",
            "body": streamfield([("math", {"tex": bad, "label": ""})]),
            "action-publish": "action-publish",
        }
    )
    revision = page.get_latest_revision()
    response = admin_client.post(
        reverse("wagtailadmin_pages:edit", args=(page.pk,)), data
    )
    assert response.status_code == 200
    field = BeautifulSoup(response.content.decode(), "html.parser").find(
        attrs={"data-w-block-arguments-value": True}
    )
    errors = json.loads(field["data-w-block-arguments-value"])[1]
    (message,) = errors["blockErrors"]["0"]["blockErrors"]["tex"]["messages"]
    assert message.startswith("公式错误")
    # Nothing was saved: no new revision.
    assert PostPage.objects.get(pk=page.pk).get_latest_revision() == revision


def test_a_formula_past_a_bound_is_imported_with_a_warning_naming_it(
    tmp_path, run_import, client
):
    vault = tmp_path / "bombs"
    vault.mkdir()
    text = f"# 宏\n\n前文 $x^2$。\n\n$$\n{MACRO_BOMB}\n$$\n\n后文。\n"
    (vault / "bomb.md").write_text(text, "utf-8")

    run = run_import(vault)

    assert run.error is None, run.out
    assert outcomes(run.out)["created"] == (1, 0)
    assert (
        "bomb.md:5: formula kept with an error: Formula too large: it expands to "
        "more than 10,000 parts: \\def\\a{\\frac{\\sqrt{x^2+y^2}}"
    ) in run.out
    assert "  1  formula kept with an error: Formula too large" in run.out
    # Nothing lost: the formula is kept as written, and shown as its source.
    page = post("bomb.md")
    assert MACRO_BOMB in [
        block.value["tex"] for block in page.body if block.block_type == "math"
    ]
    response = client.get(page.url)
    assert len(response.content) < 100_000
    soup = BeautifulSoup(response.content.decode(), "html.parser")
    (error,) = soup.select(".post-body .math-error")
    assert error.get_text().strip() == MACRO_BOMB
    assert "后文" in soup.select_one(".post-body").get_text()


# Limits -------------------------------------------------------------------------


def test_a_file_over_the_size_limit_fails_alone_naming_the_setting(
    math_vault, run_import, settings
):
    (math_vault / "small.md").write_text("# Small\n\nFine.\n", "utf-8")
    settings.VAULT_MAX_POST_BYTES = 200
    run = run_import(math_vault)
    assert outcomes(run.out)["created"] == (1, 0)
    assert outcomes(run.out)["failed"] == (1, 0)
    size = (math_vault / SOURCE).stat().st_size
    assert (
        f"{SOURCE}: file too large: {size:,} bytes, more than the 200 "
        "VAULT_MAX_POST_BYTES allows; raise VAULT_MAX_POST_BYTES to import it"
    ) in run.out


def test_a_post_over_the_formula_limit_imports_with_a_warning(
    math_vault, run_import, settings, client
):
    settings.VAULT_MAX_POST_FORMULAS = 3
    run = run_import(math_vault)
    assert outcomes(run.out)["created"] == (1, 0)
    assert re.search(
        rf"{SOURCE}: too many formulas: 1\d, more than the 3 VAULT_MAX_POST_FORMULAS "
        "allows; the post is imported, but only the first 3 were checked",
        run.out,
    )
    # Past the limit nothing is checked or repaired: shown as KaTeX shows errors.
    html = client.get(post(SOURCE).url).content.decode()
    assert "X^*" in formulas(html)
    assert BeautifulSoup(html, "html.parser").select(".post-body .math-error")


def test_lists_nested_past_the_limit_fail_the_file_at_that_line(
    tmp_path, run_import, settings
):
    settings.VAULT_MAX_NESTING = 6
    lines = ["# Deep", ""] + [f"{'  ' * i}- level {i}" for i in range(5)]
    (tmp_path / "deep.md").write_text("\n".join(lines) + "\n\nAfter.\n", "utf-8")
    (tmp_path / "shallow.md").write_text("- a\n  - b\n", "utf-8")
    run = run_import(tmp_path)
    assert outcomes(run.out)["failed"] == (1, 0)
    assert outcomes(run.out)["created"] == (1, 0)
    # Level 3 of the list is 7 levels deep (each list is a list and an item).
    assert (
        "deep.md:6: nested too deeply: lists and quotes more than 6 levels deep "
        "(VAULT_MAX_NESTING; each list counts two levels, each quote one); raise "
        "VAULT_MAX_NESTING to import it"
    ) in run.out


def test_deep_nesting_within_the_default_limit_loses_nothing(tmp_path, run_import):
    lines = [f"{'  ' * i}- level {i}" for i in range(15)] + ["", "After."]
    (tmp_path / "deep.md").write_text("# Deep\n\n" + "\n".join(lines) + "\n", "utf-8")
    run = run_import(tmp_path)
    assert outcomes(run.out)["created"] == (1, 0)
    text = "".join(str(block.value) for block in post("deep.md").body)
    assert all(f"level {i}" in text for i in range(15))
    assert "After." in text


# Hostile files: each imports (linear parsers; see the step counts in
# tests/rendering and test_blocks), its text kept --------------------------------


def test_hostile_files_import_with_their_text_kept(tmp_path, run_import, client):
    (tmp_path / "parens.md").write_text("# Parens\n\n" + "\\(" * 10_000, "utf-8")
    (tmp_path / "brackets.md").write_text("# Brackets\n\n" + "[\\[" * 5_000, "utf-8")
    (tmp_path / "divs.md").write_text("# Divs\n\n" + "<div>\n\n" * 2_000, "utf-8")
    (tmp_path / "displays.md").write_text(
        "# Displays\n\n" + "\\[\n\\begin{align}\n" * 2_000, "utf-8"
    )
    run = run_import(tmp_path)
    assert outcomes(run.out)["created"] == (4, 0)
    assert outcomes(run.out)["failed"] == (0, 0)
    parens = client.get(post("parens.md").url).content.decode()
    assert "(" * 10_000 in parens  # `\(` is Markdown's escape of `(`
    brackets = client.get(post("brackets.md").url).content.decode()
    assert "[[" * 5_000 in brackets
    divs = post("divs.md").body
    assert [block.block_type for block in divs] == ["html_figure"] * 2_000
    assert run.out.count("divs.md:") == 2_000  # "<div> is never closed", each
    displays = client.get(post("displays.md").url).content.decode()
    assert displays.count("\\begin{align}") >= 2_000


def test_formulas_past_the_limit_are_not_checked_but_rendered_once(
    tmp_path, run_import, settings
):
    settings.VAULT_MAX_POST_FORMULAS = 5
    body = "".join(f"$x_{{{i}}}$ and\n\n$$y_{{{i}}}$$\n\n" for i in range(100))
    (tmp_path / "many.md").write_text("# Many\n\n" + body, "utf-8")
    cache.reset_stats()
    run = run_import(tmp_path)
    assert outcomes(run.out)["created"] == (1, 0)
    assert "too many formulas: 200, more than the 5" in run.out
    # Typeset once for the page and once for the feed, ahead of readers
    # (blog/warming.py); none of them twice.
    assert cache.render_count("katex") == 400
