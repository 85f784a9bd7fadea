"""The parser factory: what each caller's parser reads, and the walks over its tokens."""

from rendering.comments import render_comment
from rendering.parser import fence_language, formulas, new_parser, walk

MIXED = (
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "Note[^1], ~~gone~~ and $x$.\n\n"
    "[^1]: A footnote.\n\n"
    "\\[\ny\n\\]\n\n"
    "\\begin{align}\nz &= 1\n\\end{align}\n"
)


def token_types(md, text: str) -> set[str]:
    return {token.type for token in walk(md.parse(text))}


def test_a_post_parser_reads_tables_footnotes_and_display_math_blocks():
    found = token_types(new_parser(), MIXED)

    assert {"table_open", "footnote_ref", "s_open", "math_inline"} <= found
    assert {"math_block", "amsmath"} <= found


def test_a_comment_parser_reads_strikethrough_and_inline_math_only():
    found = token_types(new_parser(syntax="comment"), MIXED)

    assert {"s_open", "math_inline"} <= found
    assert not {"table_open", "footnote_ref", "math_block", "amsmath"} & found


def test_raw_html_is_a_token_only_when_the_caller_asks():
    text = "<figure>x</figure>\n\nA <b>bold</b> word.\n"

    assert {"html_block", "html_inline"} <= token_types(new_parser(html=True), text)
    assert not {"html_block", "html_inline"} & token_types(new_parser(), text)


def test_a_fence_language_is_its_first_word_and_the_importer_drops_a_colon_name():
    assert fence_language("cuda{2}") == "cuda"
    assert fence_language(' python title="a.py"') == "python"
    assert fence_language("python:main.py") == "python:main.py"
    assert fence_language("python:main.py", colon_filename=True) == "python"
    assert fence_language("math:eq", colon_filename=True) == "math"


def test_formulas_count_a_math_fence_only_where_it_renders_as_math():
    tokens = new_parser().parse("$a$ and $$b$$\n\n```math\nc\n```\n")

    assert list(formulas(tokens)) == [("a", False), ("b", True), ("c\n", True)]
    assert list(formulas(tokens, math_fences=False)) == [("a", False), ("b", True)]


def test_a_comment_shows_no_heading_or_image_and_a_math_fence_as_code():
    html = render_comment("# Title\n\n![alt](a.png)\n\n```math\nx^2\n```\n")

    assert "<h1" not in html
    assert "<img" not in html
    assert '<code class="language-math">x^2\n</code>' in html
    assert "katex" not in html
