"""Markdown escapes inside formulas are undone only where KaTeX then accepts them."""

import pytest
from PIL import Image

from rendering import check_math
from vault.importer.assets import AssetFinder
from vault.importer.body import parse_body
from vault.importer.mathfix import FormulaFixer


@pytest.mark.parametrize(
    ("written", "display", "repaired"),
    [
        (r"X^\*", False, "X^*"),
        (r"w\*{new}", False, "w*{new}"),
        (r"e\_{ij}^\\top", False, r"e_{ij}^\top"),
        (r"\\mathbf{x}^\\top W", False, r"\mathbf{x}^\top W"),
        ("a = b\n\\+ c", True, "a = b\n+ c"),
        (
            r"\begin{bmatrix} a & b \[2pt] c & d \end{bmatrix}",
            True,
            r"\begin{bmatrix} a & b \\[2pt] c & d \end{bmatrix}",
        ),
        (r"f\(x\) = x^\*", False, "f(x) = x^*"),
        # `\_` in \text{} is TeX's own escape: only the broken `\*` is undone.
        (r"\text{file\_name} \cdot x^\*", False, r"\text{file\_name} \cdot x^*"),
        # A line break before a variable in an aligned row is TeX, not an escape.
        (
            r"\begin{aligned} a &= b \\c &= d^\* \end{aligned}",
            True,
            r"\begin{aligned} a &= b \\c &= d^* \end{aligned}",
        ),
    ],
)
def test_escapes_are_undone_where_katex_then_accepts_the_formula(
    written, display, repaired
):
    assert check_math(written, display) is not None
    assert FormulaFixer().fix(written, display) == (repaired, None)


@pytest.mark.parametrize(
    "valid", [r"x\_1", r"\\alpha", r"a \\ b", r"\{x\}", r"\#", r"a\,b", r"\|v\|"]
)
def test_a_formula_katex_accepts_is_kept_as_written(valid):
    fixer = FormulaFixer()
    assert fixer.fix(valid, True) == (valid, None)
    assert fixer.repaired == {}


def test_a_formula_no_repair_saves_is_kept_as_written_with_katex_message():
    tex, message = FormulaFixer().fix(r"f(x) &= x^\*", True)
    assert tex == r"f(x) &= x^\*"
    assert message.startswith("KaTeX parse error: Expected 'EOF', got '&'")


def test_past_the_limit_formulas_are_not_checked():
    fixer = FormulaFixer(limit=1)
    assert fixer.fix(r"X^\*", False) == ("X^*", None)
    assert fixer.fix(r"Y^\*", False) == (r"Y^\*", None)
    assert fixer.over_limit


def test_captions_and_markdown_blocks_get_the_repairs(tmp_path):
    Image.new("RGB", (2, 2)).save(tmp_path / "plot.png")
    body = parse_body(
        '![loss](plot.png "训练曲线 $L^\\*$")\n\n'
        "- 一项\n\n  ```python\n  x = 1\n  ```\n- 最优 $w^\\*$\n",
        base_dir=tmp_path,
        finder=AssetFinder(tmp_path),
    )
    assert body.blocks[0].value["caption"] == "训练曲线 $L^*$"
    assert body.blocks[1].type == "markdown"
    assert "$w^*$" in body.blocks[1].value
    assert body.warnings == []
