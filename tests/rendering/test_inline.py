import pytest
from bs4 import BeautifulSoup

from rendering import (
    find_inline_math,
    inline_math_errors,
    render_inline_html,
    render_inline_text,
    render_math,
)
from rendering import inline as inline_module
from tests.steps import grows_linearly, lines_run


def formulas(html: str) -> list[str]:
    """Return the TeX source of every KaTeX formula in ``html``."""
    soup = BeautifulSoup(html, "html.parser")
    return [
        span.find("annotation").get_text() for span in soup.find_all(class_="katex")
    ]


def visible_text(html: str) -> str:
    """Return ``html``'s text with each formula replaced by ``[tex]``."""
    soup = BeautifulSoup(html, "html.parser")
    for span in soup.find_all(class_="katex"):
        span.replace_with(f"[{span.find('annotation').get_text()}]")
    return soup.get_text()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$x^2$", ["x^2"]),
        ("$a$, $b$", ["a", "b"]),
        ("设 $n=2^k$，则", ["n=2^k"]),
        (r"\(a+b\) and \(c\)", ["a+b", "c"]),
        (r"$\$5$", [r"\$5"]),
        (r"$\text{a $b$ c}$", [r"\text{a $b$ c}"]),
        (r"$\text{a \{ $b$}$", [r"\text{a \{ $b$}"]),
        ("$a\nb$", ["a\nb"]),
        ("It costs $5 or $10", []),
        ("$ x$", []),
        ("$x $", []),
        ("$x$5", []),
        ("$$x$$", []),
        ("$$", []),
        ("$", []),
        ("a $b", []),
        (r"\$5 and \$x\$", []),
        ("$a\n\nb$", []),
        (r"\(\)", []),
        (r"\\(x\\)", []),
    ],
)
def test_find_inline_math(text, expected):
    assert [m.tex for m in find_inline_math(text)] == expected


def test_find_inline_math_reports_source_spans():
    text = r"A $x$ and \(y\)."

    found = find_inline_math(text)

    assert [text[m.start : m.end] for m in found] == ["$x$", r"\(y\)"]
    assert found[0] == (2, 5, "x")


def test_dollar_amounts_stay_literal_text():
    html = render_inline_text("It costs $5 or $10")

    assert html == "It costs $5 or $10"


def test_escaped_dollar_renders_a_plain_dollar():
    assert render_inline_text(r"\$5 each") == "$5 each"


def test_math_is_rendered_and_text_escaped():
    html = render_inline_text("If $a<b$ then <b>&</b>")

    assert formulas(html) == ["a<b"]
    assert visible_text(html) == "If [a<b] then <b>&</b>"
    assert "<b>" not in html
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in html


def test_chinese_text_around_math():
    html = render_inline_text("设 $n=2^k$，则 $\\log n = k$。")

    assert visible_text(html) == "设 [n=2^k]，则 [\\log n = k]。"


def test_two_formulas_in_one_text():
    assert formulas(render_inline_text("$a$, $b$")) == ["a", "b"]


def test_inline_text_uses_inline_mode():
    html = render_inline_text("$x$")

    assert html == render_math("x")
    assert "katex-display" not in html


def test_invalid_formula_becomes_a_fallback_not_an_exception():
    html = render_inline_text(r"Bad: $\frac{a$ end")

    soup = BeautifulSoup(html, "html.parser")
    assert soup.find(class_="math-error").code.get_text() == r"\frac{a"
    assert soup.get_text().endswith(" end")


def test_rich_text_math_in_paragraph_and_link():
    html = render_inline_html('<p>Let $x$ be <a href="/x">$y$</a>.</p>')

    assert formulas(html) == ["x", "y"]
    assert html.startswith("<p>Let ")
    assert '<a href="/x"><span class="katex">' in html


def test_rich_text_leaves_code_pre_script_style_and_attributes_alone():
    markup = (
        '<p title="$a$">x <code>$b$</code></p>'
        "<pre>$c$ <b>$d$</b></pre>"
        '<script>var s = "$e$ </p>";</script>'
        "<style>.x::after { content: '$f$' }</style>"
        "<p>$g$</p>"
    )

    html = render_inline_html(markup)

    assert formulas(html) == ["g"]
    assert html.replace(render_math("g"), "$g$") == markup


def test_rich_text_entities_are_unescaped_inside_math():
    html = render_inline_html("<p>$a &lt; b$ and $\\{x &gt; y\\}$</p>")

    assert formulas(html) == ["a < b", r"\{x > y\}"]


def test_rich_text_without_math_is_byte_identical():
    markup = (
        "<h2>Title</h2><p>It&#x27;s &amp; &lt;b&gt; &quot;q&quot; costs $5 or $10"
        ' <i>x</i><br/><a href="/p?a=1&amp;b=$2$">link</a></p>'
        "<ul><li>one</li><li>two</li></ul><!-- $c$ -->"
    )

    assert render_inline_html(markup) == markup


def test_rich_text_keeps_surrounding_entities_byte_identical():
    markup = "<p>It&#x27;s $x$ &amp; more</p>"

    html = render_inline_html(markup)

    assert html == "<p>It&#x27;s " + render_math("x") + " &amp; more</p>"


def test_rich_text_escaped_dollar():
    assert render_inline_html(r"<p>\$5</p>") == "<p>$5</p>"


def test_rich_text_math_does_not_span_tags():
    markup = "<p>$a <b>b</b> c$</p>"

    assert render_inline_html(markup) == markup


def test_rich_text_nested_code_skips_until_closed():
    html = render_inline_html("<pre><code>$a$</code> $b$</pre> $c$")

    assert formulas(html) == ["c"]


def test_rich_text_keeps_greater_than_inside_quoted_attribute():
    markup = '<a title="x > $y$">$z$</a>'

    html = render_inline_html(markup)

    assert formulas(html) == ["z"]
    assert html.startswith('<a title="x > $y$">')


def test_inline_math_errors_in_text():
    errors = inline_math_errors(r"$x$ and $\frac{a$ and $\undefinedcmd$")

    assert len(errors) == 2
    assert all(e.startswith("KaTeX parse error") for e in errors)
    assert "Undefined control sequence" in errors[1]


def test_inline_math_errors_in_html_skip_code_and_unescape():
    markup = r"<p>$a &lt; b$ <code>$\bad$</code> $\frac{a$</p>"

    errors = inline_math_errors(markup, html=True)

    assert len(errors) == 1
    assert r"\frac{a" in errors[0]


def test_inline_math_errors_is_empty_for_valid_input():
    assert inline_math_errors("Costs $5 or $10; $x^2$") == []


# Hostile input: the work stays linear --------------------------------------


SCANNERS = (inline_module._Scanner.find, inline_module._Scanner._group_end)


@pytest.mark.parametrize(
    "unit", [r"\(", r"[\[", "$a", r"\(\text{", r"$\text{{", r"$\text{a"]
)
def test_openers_without_closers_are_scanned_in_linear_time(unit):
    def steps(n: int) -> int:
        return lines_run(lambda: find_inline_math(unit * n), SCANNERS)

    assert grows_linearly(steps, 2_000)


def test_ten_thousand_unclosed_openers_stay_text():
    text = r"\(" * 10_000
    assert find_inline_math(text) == []
    html = render_inline_text(text)
    assert "katex" not in html
    assert html == text


def test_many_dollar_formulas_are_all_found():
    text = "$a$ " * 5_000
    assert [m.tex for m in find_inline_math(text)] == ["a"] * 5_000
