"""Math in Markdown: dollar and bracket delimiters, amsmath, ```math fences, errors."""

import pytest
from bs4 import BeautifulSoup

from rendering import markdown as markdown_module
from rendering import markdown_math_errors, math_syntax, render_markdown, render_math
from tests.rendering.rendered import formulas, soup_of
from tests.steps import grows_linearly, lines_run


def test_inline_dollar_math():
    soup = soup_of("Energy $E=mc^2$ here.")

    assert formulas(soup) == [("E=mc^2", False)]


def test_dollar_amounts_stay_text():
    html = render_markdown("It costs $5 or $10.")

    assert html == "<p>It costs $5 or $10.</p>\n"


def test_escaped_dollar_is_literal():
    assert render_markdown(r"Price: \$5 and \$x\$") == "<p>Price: $5 and $x$</p>\n"


def test_display_math_on_one_line():
    soup = soup_of("$$E=mc^2$$")

    block = soup.select_one("div.math-display")
    assert block is not None
    assert formulas(block) == [("E=mc^2", True)]


def test_display_math_over_several_lines_with_aligned():
    text = "$$\n\\begin{aligned}\na &= b \\\\\nc &= d\n\\end{aligned}\n$$\n"

    soup = soup_of(text)

    assert soup.select_one("div.math-display mtable") is not None
    assert soup.find(class_="math-error") is None


def test_double_dollar_inside_a_paragraph_is_display_math():
    soup = soup_of("so $$x^2$$ holds")

    span = soup.select_one("p > span.math-display")
    assert formulas(span) == [("x^2", True)]


def test_bracket_delimiters():
    soup = soup_of("Inline \\(a+b\\) then\n\n\\[\n\\int_0^1 x\\,dx\n\\]\n")

    assert formulas(soup) == [("a+b", False), ("\n\\int_0^1 x\\,dx\n", True)]
    assert soup.select_one("div.math-display") is not None


def test_bracket_display_on_one_line():
    soup = soup_of("\\[x+y\\]")

    assert formulas(soup.select_one("div.math-display")) == [("x+y", True)]


def test_amsmath_environment():
    soup = soup_of("\\begin{align}\na &= b \\\\\nc &= d\n\\end{align}\n")

    assert soup.select_one("div.math-display mtable") is not None
    assert soup.find(class_="math-error") is None


def test_math_fence_is_display_math():
    soup = soup_of("```math\n\\frac{1}{2}\n```\n")

    assert formulas(soup.select_one("div.math-display")) == [("\\frac{1}{2}\n", True)]


def test_math_in_code_spans_is_left_alone():
    assert render_markdown("Use `$x$` literally") == (
        "<p>Use <code>$x$</code> literally</p>\n"
    )


def test_invalid_math_renders_a_fallback_not_an_exception():
    soup = soup_of("Bad $\\frac{a$ and\n\n$$\\frac{b$$\n")

    errors = soup.find_all(class_="math-error")
    assert [e.name for e in errors] == ["span", "div"]
    assert errors[0].code.get_text() == "\\frac{a"
    assert errors[0]["title"].startswith("KaTeX parse error")


def test_markdown_math_errors_lists_every_bad_formula():
    text = (
        "Good $x$, bad $\\frac{a$.\n\n"
        "$$\\undefinedcommand$$\n\n"
        "\\[\\frac{1}{\\]\n\n"
        "```math\n\\sqrt{\n```\n\n"
        "`$\\bad$` in code is fine.\n"
    )

    errors = markdown_math_errors(text)

    assert len(errors) == 4
    assert all(e.startswith("KaTeX parse error") for e in errors)
    assert "Undefined control sequence" in errors[1]


def test_markdown_math_errors_is_empty_for_valid_text():
    assert markdown_math_errors("$a$ and $$b$$ and \\(c\\), costs $5 or $10") == []


def test_rendered_math_matches_the_math_renderer():
    html = render_markdown("$\\alpha$")

    assert html == f"<p>{render_math(chr(92) + 'alpha')}</p>\n"


# Hostile input: the work stays linear --------------------------------------


@pytest.mark.parametrize("unit", [r"\(", r"\[", r"[\[", r"[\("])
def test_bracket_openers_without_closers_are_scanned_in_linear_time(unit):
    def steps(n: int) -> int:
        return lines_run(
            lambda: markdown_module._md.parse(unit * n),
            [math_syntax._scan_closer],
        )

    assert grows_linearly(steps, 2_000)


@pytest.mark.parametrize(
    "unit", ["\\[\n", "\\[ a\n", "> \\[\n", "- \\[\n", "\\begin{align}\n"]
)
def test_display_openers_without_closers_are_scanned_in_linear_time(unit):
    def steps(n: int) -> int:
        return lines_run(
            lambda: markdown_module._md.parse(unit * n),
            [
                math_syntax._display_end,
                math_syntax._bracket_math_block,
                math_syntax._amsmath_if_closed,
                math_syntax.amsmath_block,
            ],
        )

    assert grows_linearly(steps, 1_000)


def test_display_math_over_lines_after_unclosed_openers_still_renders():
    text = "\\[\n\\[\n\n\\begin{gather}\n\n\\[\na + b\n\\]\n\n\\begin{align}\nx &= 1\n\\end{align}\n"
    assert [(tex.strip(), display) for tex, display in formulas(soup_of(text))] == [
        ("a + b", True),
        ("\\begin{align}\nx &= 1\n\\end{align}", True),
    ]


def test_a_paragraph_of_unclosed_brackets_renders_as_text():
    text = r"[\[" * 20_000
    soup = BeautifulSoup(render_markdown(text), "html.parser")
    assert soup.get_text().strip() == "[[" * 20_000
    assert soup.find(class_="katex") is None


def test_a_link_label_may_hold_bracket_math():
    soup = BeautifulSoup(
        render_markdown(r"[see \(x\) here](https://a.example)"), "html.parser"
    )
    assert soup.a.find(class_="katex") is not None
    assert r"\(" not in soup.get_text()
