import time

import pytest
from bs4 import BeautifulSoup

from rendering import (
    library_image_ids,
    markdown_math_errors,
    render_markdown,
    render_math,
)
from rendering import markdown as markdown_module
from rendering.markdown import CALLOUT_TYPES
from tests.steps import grows_linearly, lines_run


def soup_of(text: str) -> BeautifulSoup:
    return BeautifulSoup(render_markdown(text), "html.parser")


def formulas(soup: BeautifulSoup) -> list[tuple[str, bool]]:
    """Return (tex, display) for every KaTeX formula in ``soup``."""
    return [
        (
            span.find("annotation").get_text(),
            span.find_parent(class_="katex-display") is not None,
        )
        for span in soup.find_all(class_="katex")
    ]


def test_paragraphs_emphasis_and_links():
    html = render_markdown("Hello *world* and [docs](https://example.com).")

    assert html == (
        '<p>Hello <em>world</em> and <a href="https://example.com">docs</a>.</p>\n'
    )


def test_table():
    soup = soup_of("| op | cost |\n|----|-----:|\n| add | $1$ |\n| mul | 4 |\n")

    assert [th.get_text() for th in soup.select("thead th")] == ["op", "cost"]
    assert [td.get_text() for td in soup.select("tbody tr:last-child td")] == [
        "mul",
        "4",
    ]
    assert formulas(soup) == [("1", False)]


def test_strikethrough():
    assert "<s>old</s>" in render_markdown("~~old~~ new")


def test_footnotes():
    soup = soup_of("Claim.[^1]\n\n[^1]: Source.\n")

    ref = soup.select_one("sup.footnote-ref a")
    assert ref["href"] == "#fn1"
    note = soup.select_one("section.footnotes li#fn1")
    assert note.get_text().startswith("Source.")


def test_footnote_ids_can_be_prefixed_per_document():
    soup = BeautifulSoup(
        render_markdown("A.[^1]\n\n[^1]: B.\n", doc_id="b2"), "html.parser"
    )

    assert soup.select_one("sup.footnote-ref a")["href"] == "#fn-b2-1"
    assert soup.select_one("li.footnote-item")["id"] == "fn-b2-1"


def test_fenced_cuda_code_is_highlighted():
    soup = soup_of("```cuda\n__global__ void k(float* a) {}\n```\n")

    code = soup.select_one("div.highlight pre code.language-cuda")
    assert code is not None
    assert code.find("span", class_="kt").get_text() == "void"
    assert code.get_text() == "__global__ void k(float* a) {}\n"


def test_fence_language_aliases_and_unknown_languages():
    assert 'class="language-cpp"' in render_markdown("```c++\nint x;\n```\n")
    assert 'class="language-text"' in render_markdown("```\nplain\n```\n")
    assert 'class="language-text"' in render_markdown("```klingon\nqapla'\n```\n")


def test_fenced_code_has_the_code_blocks_frame_label_and_line_numbers():
    soup = soup_of("```py\nx = 1\ny = 2\n```\n")
    frame = soup.select_one("figure.block-code")
    assert frame["data-language"] == "python"
    assert frame.select_one(".code-language").get_text() == "Python"
    assert [n.get_text() for n in frame.select("td.linenos .normal")] == ["1", "2"]
    assert frame.select_one("code").get_text() == "x = 1\ny = 2\n"


def test_fenced_code_without_line_numbers_keeps_its_frame():
    soup = soup_of("```ptx nolinenos\nmov.u32 %r1, %r2;\n```\n\n    indented\n")
    framed, indented = soup.select("figure.block-code")
    assert framed.select_one(".code-language").get_text() == "PTX"
    assert not framed.select("td.linenos")
    assert indented.select_one(".code-language").get_text() == "Text"


def test_fence_info_string_highlights_lines_and_shows_a_title():
    soup = soup_of('```cuda {2} title="gemm.cu"\nint a;\nint b;\nint c;\n```\n')

    assert [line.get_text() for line in soup.select("code .hll")] == ["int b;\n"]
    assert soup.select_one(".code-filename").get_text() == "gemm.cu"
    assert soup.select_one("code")["class"] == ["language-cuda"]


def test_fence_info_string_line_numbers():
    soup = soup_of("```python linenos=10\na = 1\nb = 2\n```\n")

    assert soup.select_one("td.linenos").get_text().split() == ["10", "11"]


def test_fence_with_a_bad_line_spec_still_renders():
    soup = soup_of("```cuda {3-1}\nint a;\n```\n")

    assert soup.select_one("code.language-cuda").get_text() == "int a;\n"
    assert soup.select("code .hll") == []


def test_indented_code_uses_the_same_code_frame():
    soup = soup_of("Text:\n\n    <b>raw</b>\n")

    assert soup.select_one("div.highlight code.language-text").get_text() == (
        "<b>raw</b>\n"
    )


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


def test_raw_html_is_escaped():
    html = render_markdown("<script>alert(1)</script>\n\nHi <b onclick=x>there</b>")

    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b " not in html
    assert "&lt;b onclick=x&gt;" in html


def test_javascript_links_are_not_links():
    soup = soup_of("[x](javascript:alert(1)) and <javascript:alert(1)>")

    assert soup.find("a") is None


def test_headings_get_unique_stable_ids():
    soup = soup_of(
        "# 2.1 Shared Memory 与 Bank Conflict\n\n## 静态链接\n\n## Intro\n\n## Intro\n"
    )

    assert [h["id"] for h in soup.find_all(["h1", "h2"])] == [
        "21-shared-memory-与-bank-conflict",
        "静态链接",
        "intro",
        "intro-2",
    ]


def test_heading_ids_ignore_link_urls_and_math_delimiters():
    soup = soup_of("## See [docs](https://x.org/a) for $O(n)$\n")

    assert soup.h2["id"] == "see-docs-for-on"
    assert formulas(soup.h2) == [("O(n)", False)]


@pytest.mark.parametrize(
    "kind", ["note", "tip", "info", "warning", "danger"], ids=lambda k: k
)
def test_callout_types(kind):
    soup = soup_of(f"> [!{kind.upper()}]\n> Body text.\n")

    aside = soup.find("aside")
    assert aside["class"] == ["callout", f"callout-{kind}"]
    assert aside.select_one("p.callout-title").get_text() == kind.capitalize()
    assert [p.get_text() for p in aside.find_all("p")][1:] == ["Body text."]
    assert soup.find("blockquote") is None


@pytest.mark.parametrize(
    ("written", "kind"),
    [
        ("important", "info"),
        ("caution", "warning"),
        ("error", "danger"),
        ("hint", "tip"),
        ("abstract", "info"),
        ("summary", "info"),
        ("question", "info"),
        ("bug", "danger"),
        ("example", "note"),
        ("quote", "note"),
    ],
)
def test_callout_synonyms(written, kind):
    soup = soup_of(f"> [!{written}]\n> Body.\n")

    assert soup.aside["class"] == ["callout", f"callout-{kind}"]
    assert soup.select_one(".callout-title").get_text() == written.capitalize()


def test_every_callout_synonym_maps_to_a_canonical_type():
    assert set(CALLOUT_TYPES.values()) == {"note", "tip", "info", "warning", "danger"}


def test_callout_custom_title_with_inline_markup_and_math():
    soup = soup_of("> [!Tip] Use *shared* memory for $O(1)$ reuse\n> Body.\n")

    title = soup.select_one("aside.callout-tip p.callout-title")
    assert title.em.get_text() == "shared"
    assert formulas(title) == [("O(1)", False)]


def test_foldable_callout_markers_are_tolerated():
    for marker in ("-", "+"):
        soup = soup_of(f"> [!WARNING]{marker} Careful\n> Body.\n")

        assert soup.aside["class"] == ["callout", "callout-warning"]
        assert soup.select_one(".callout-title").get_text() == "Careful"


def test_callout_body_keeps_blocks_and_math():
    text = "> [!NOTE]\n> First.\n>\n> $$x^2$$\n>\n> ```cuda\n> int i;\n> ```\n"

    soup = soup_of(text)

    aside = soup.aside
    assert aside.select_one("p:not(.callout-title)").get_text() == "First."
    assert aside.select_one("div.math-display") is not None
    assert aside.select_one("code.language-cuda") is not None


def test_callout_with_only_a_title():
    soup = soup_of("> [!DANGER] Do not do this\n")

    assert [p.get_text() for p in soup.aside.find_all("p")] == ["Do not do this"]


def test_unknown_callout_type_stays_a_blockquote():
    soup = soup_of("> [!FOO]\n> Body.\n")

    assert soup.aside is None
    assert soup.blockquote.p.get_text() == "[!FOO]\nBody."


def test_plain_blockquote_is_untouched():
    assert render_markdown("> Quote.") == "<blockquote>\n<p>Quote.</p>\n</blockquote>\n"


def test_nested_callout_inside_a_list():
    soup = soup_of("- item\n\n  > [!TIP]\n  > Nested.\n")

    assert soup.select_one("li aside.callout-tip") is not None


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


# MkDocs syntax ---------------------------------------------------------------


def test_mkdocs_admonitions_render_as_callouts():
    text = (
        '!!! warning "Bank conflicts"\n'
        "    Pad the tile: $s = 33$.\n\n"
        "    ```cuda\n"
        "    __shared__ float tile[32][33];\n"
        "    ```\n\n"
        "!!! tip\n"
        "    Use `cp.async`.\n\n"
        "after\n"
    )

    soup = soup_of(text)

    first, second = soup.find_all("aside")
    assert first["class"] == ["callout", "callout-warning"]
    assert first.select_one("p.callout-title").get_text() == "Bank conflicts"
    assert formulas(first) == [("s = 33", False)]
    assert first.select_one("code.language-cuda") is not None
    assert second["class"] == ["callout", "callout-tip"]
    assert second.select_one("p.callout-title").get_text() == "Tip"
    assert soup.find_all("p")[-1].get_text() == "after"
    assert "!!!" not in soup.get_text()


def test_collapsible_admonitions_are_shown_open():
    soup = soup_of('??? info "Proof"\n    Hidden.\n\n???+ question\n    Shown.\n')

    kinds = [aside["class"] for aside in soup.find_all("aside")]
    assert kinds == [["callout", "callout-info"], ["callout", "callout-info"]]
    assert [p.get_text() for p in soup.find_all("p")] == [
        "Proof",
        "Hidden.",
        "Question",
        "Shown.",
    ]


def test_admonition_with_empty_title_has_no_title_bar_and_unknown_is_a_note():
    soup = soup_of('!!! note ""\n    Bare.\n\n!!! custom "Odd"\n    Kept.\n')

    bare, odd = soup.find_all("aside")
    assert bare.select_one(".callout-title") is None
    assert bare.get_text(strip=True) == "Bare."
    assert odd["class"] == ["callout", "callout-note"]
    assert odd.select_one(".callout-title").get_text() == "Odd"


def test_nested_admonitions():
    soup = soup_of('!!! note "Outer"\n    !!! danger "Inner"\n        Deep.\n')

    assert (
        soup.select_one(
            "aside.callout-note > aside.callout-danger p:not(.callout-title)"
        ).get_text()
        == "Deep."
    )


def test_content_tabs_become_headed_sections():
    text = (
        "## 关于\n\n"
        '=== "中文"\n\n'
        "    我写 CUDA。\n\n"
        "    - 一\n"
        "    - 二\n\n"
        '=== "English"\n'
        "    I write CUDA.\n\n"
        "Shared text.\n"
    )

    soup = soup_of(text)

    assert [(h.name, h.get_text()) for h in soup.find_all(["h2", "h3"])] == [
        ("h2", "关于"),
        ("h3", "中文"),
        ("h3", "English"),
    ]
    assert [li.get_text() for li in soup.find_all("li")] == ["一", "二"]
    assert [p.get_text() for p in soup.find_all("p")] == [
        "我写 CUDA。",
        "I write CUDA.",
        "Shared text.",
    ]
    assert "===" not in soup.get_text()


def test_attribute_lists_are_never_shown():
    text = (
        "## Layout { #layout .wide }\n\n"
        'A figure ![tile](tile.png){ width="200px" } and '
        "[a link](https://e.com){ width=300 } and ![b](b.png){: .center }.\n"
        '![c](c.png){ align=right style="max-width: 40%" }\n'
        "{: .caption }\n\n"
        "Braces in prose stay: {x} and set {a, b}.\n"
    )

    soup = soup_of(text)

    assert soup.h2.get_text() == "Layout"
    assert soup.h2["id"] == "layout"
    first, last = soup.find_all("p")
    assert " ".join(first.get_text().split()) == "A figure and a link and ."
    assert [img["src"] for img in first.find_all("img")] == [
        "tile.png",
        "b.png",
        "c.png",
    ]
    assert all(
        set(img.attrs) == {"src", "alt", "loading", "decoding"}
        for img in first.find_all("img")
    )
    assert last.get_text() == "Braces in prose stay: {x} and set {a, b}."


def test_blank_lines_inside_an_admonition_body_keep_it_open():
    text = (
        '!!! example "Two functions"\n'
        "    ```python\n"
        "    def a():\n"
        "        pass\n"
        "\n"
        "\n"
        "    def b():\n"
        "        pass\n"
        "    ```\n"
        "\n"
        "\n"
        "    Still inside.\n"
        "\n"
        "Outside.\n"
    )

    soup = soup_of(text)

    aside = soup.aside
    assert aside.select_one("code.language-python").get_text() == (
        "def a():\n    pass\n\n\ndef b():\n    pass\n"
    )
    assert aside.find_all("p")[-1].get_text() == "Still inside."
    assert soup.find_all("p", recursive=False)[-1].get_text() == "Outside."
    assert "```" not in soup.get_text()


def test_a_tab_set_is_one_level_below_the_heading_before_it():
    text = (
        "## Install\n\n"
        '=== "pip"\n    #### Note\n    Use a venv.\n\n'
        '=== "conda"\n    Use an env.\n\n'
        "Then:\n\n"
        '=== "Linux"\n    ok\n'
    )

    soup = soup_of(text)

    assert [(h.name, h.get_text()) for h in soup.find_all(["h2", "h3", "h4"])] == [
        ("h2", "Install"),
        ("h3", "pip"),
        ("h4", "Note"),
        ("h3", "conda"),
        ("h3", "Linux"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "x" + " " * 100_000 + "{a=b} x }",
        "{a=b}" * 40_000 + "x",
        '{ a="' * 40_000,
        "\n\n".join(
            f'=== "t{n}"\n    body\n\n!!! note\n    n\n\n\n    m' for n in range(3000)
        ),
    ],
    ids=["spaces", "many-lists", "open-quotes", "tabs-and-admonitions"],
)
def test_mkdocs_syntax_takes_linear_time_on_hostile_input(text):
    started = time.perf_counter()
    render_markdown(text)
    assert time.perf_counter() - started < 10


def test_library_images_take_the_url_they_are_given_and_load_lazily():
    html = render_markdown(
        'See ![the *roofline*](image:7 "Fig. 1") and ![gone](image:8) and '
        "![remote](https://example.com/a.png).",
        images={"7": ("/media/original_images/roof.png", 640, 480)},
    )

    soup = BeautifulSoup(html, "html.parser")
    library, remote = soup.find_all("img")
    assert library.attrs == {
        "src": "/media/original_images/roof.png",
        "alt": "the roofline",
        "title": "Fig. 1",
        "width": "640",
        "height": "480",
        "loading": "lazy",
        "decoding": "async",
    }
    assert remote.attrs == {
        "src": "https://example.com/a.png",
        "alt": "remote",
        "referrerpolicy": "no-referrer",
        "loading": "lazy",
        "decoding": "async",
    }
    # A library image the page was not given shows its alt text, not a broken image.
    assert soup.select_one(".image-missing").get_text() == "gone"
    assert "image:" not in html


def test_library_image_ids_lists_the_images_markdown_shows():
    text = "![a](image:3) ![b](<image:12>) `image:5` ![c](image:3)"
    assert library_image_ids(text) == [3, 12]


# Hostile input: the work stays linear --------------------------------------


@pytest.mark.parametrize("unit", [r"\(", r"\[", r"[\[", r"[\("])
def test_bracket_openers_without_closers_are_scanned_in_linear_time(unit):
    def steps(n: int) -> int:
        return lines_run(
            lambda: markdown_module._md.parse(unit * n),
            [markdown_module._scan_closer],
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
                markdown_module._display_end,
                markdown_module._bracket_math_block,
                markdown_module._amsmath_if_closed,
                markdown_module.amsmath_block,
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


def test_lists_nested_past_markdown_its_default_depth_lose_nothing():
    # markdown-it stops at 20 levels (10 lists) and drops the rest of the text.
    text = "".join(f"{'  ' * i}- level {i}\n" for i in range(15)) + "\nAfter.\n"
    soup = soup_of(text)
    assert [li.contents[0].strip() for li in soup.find_all("li")] == [
        f"level {i}" for i in range(15)
    ]
    assert soup.find_all("p")[-1].get_text() == "After."
