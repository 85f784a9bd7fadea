"""Rich text to Markdown: what it says reads back the same, escaped where needed."""

import html

import pytest
from django.core.management import call_command
from wagtail.models import Page

from blog.models import PostPage, SeriesPage
from tests.vault.exporter.reading import assert_reads_back, md, read_prose
from vault.exporter.richtext import (
    OfflineResolver,
    code_span,
    escape_text,
)


def test_dollars_that_open_no_formula_stay_as_typed():
    assert assert_reads_back("<p>It costs $5 or $10.</p>") == "It costs $5 or $10."


def test_a_literal_dollar_keeps_its_backslash():
    markdown = assert_reads_back(
        "<p>每美元 token 数（例如 \\$2.5/GPU·h），$x$ 与 \\$y</p>"
    )
    assert markdown == "每美元 token 数（例如 \\$2.5/GPU·h），$x$ 与 \\$y"


def test_inline_math_is_copied_verbatim():
    rich = "<p>设 $s_{x,i} = a_1 * b_2$，且 \\(x_*\\) 与 $\\lVert W \\rVert_F^2$。</p>"
    assert assert_reads_back(rich) == (
        "设 $s_{x,i} = a_1 * b_2$，且 \\(x_*\\) 与 $\\lVert W \\rVert_F^2$。"
    )


def test_double_dollars_in_text_are_escaped():
    # "$$" opens display math in Markdown; as text it is two literal dollars.
    assert md("<p>price $$ here</p>") == "price \\$\\$ here"


def test_backslashes_survive():
    assert assert_reads_back("<p>C:\\temp\\*.cu and \\\\$x$</p>") == (
        "C:\\\\temp\\\\\\*.cu and \\\\\\\\$x$"
    )


def test_markdown_syntax_in_text_is_escaped():
    rich = (
        "<p>a*b and 2 * 3, snake_case and _x_, `tick`, [x](y) [^1] [[wiki]], "
        "&lt;div&gt; &amp;amp; ~~no~~ x^2</p>"
    )
    markdown = assert_reads_back(rich)
    assert "snake_case" in markdown
    assert "2 * 3" in markdown
    assert "\\<div>" in markdown
    assert "[x\\](y)" in markdown
    assert "[\\^1\\]" in markdown


@pytest.mark.parametrize(
    "line",
    [
        "# not a heading",
        "> not a quote",
        "- not a list",
        "+ nor",
        "1. nor",
        "3) nor",
        "* x",
        "===",
    ],
)
def test_a_line_that_looks_like_a_block_is_escaped(line):
    markdown = assert_reads_back(f"<p>text<br/>{html.escape(line)}</p>")
    assert markdown.startswith("text\\\n")


@pytest.mark.parametrize(
    ("code", "span"),
    [
        ("x", "`x`"),
        ("a`b", "``a`b``"),
        ("`x`", "`` `x` ``"),
        ("a``b", "`a``b`"),
        (" x ", "`  x  `"),
        ("$5 or $x$", "`$5 or $x$`"),
    ],
)
def test_code_spans_take_a_fence_no_backtick_run_inside_matches(code, span):
    assert code_span(code) == span
    assert_reads_back(f"<p>see <code>{html.escape(code)}</code></p>")


def test_emphasis_strike_sub_and_superscript():
    markdown = assert_reads_back(
        "<p><b>bold</b>, <i>it</i>, <s>gone</s>, x<sup>2</sup>, H<sub>2</sub>O</p>"
    )
    assert markdown == "**bold**, *it*, ~~gone~~, x<sup>2</sup>, H<sub>2</sub>O"


def test_highlights_read_back_as_obsidian_writes_them():
    assert (
        assert_reads_back("<p>瓶颈在于<mark>合并访存</mark>。</p>")
        == "瓶颈在于==合并访存==。"
    )
    assert assert_reads_back("<p><mark><b>x</b> y</mark></p>") == "==<b>x</b> y=="
    # Where == would not flank, the tag is kept, and read back as a highlight.
    assert assert_reads_back("<p>x<mark>（注）</mark>y</p>") == "x<mark>（注）</mark>y"


def test_equals_signs_typed_as_text_stay_text():
    markdown = assert_reads_back("<p>literal ==not a mark==, x==y, a == b, $a==b$</p>")
    assert markdown == "literal \\==not a mark\\==, x\\==y, a == b, $a==b$"


def test_percent_signs_typed_as_text_open_no_comment():
    markdown = assert_reads_back("<p>进度 100%%，printf 写 %%d，%%%</p>")
    assert markdown == "进度 100\\%%，printf 写 \\%%d，\\%\\%%"
    assert assert_reads_back("<p>50% 与 100%</p>") == "50% 与 100%"


def test_spaces_at_the_edge_of_emphasis_move_outside_it():
    # "** bold **" would be no emphasis at all.
    markdown = md("<p>a<b> bold </b>b</p>")
    assert markdown == "a **bold** b"
    assert read_prose(markdown) == "<p>a <b>bold</b> b</p>"


def test_chinese_emphasis_reads_back():
    assert_reads_back("<p>若有 $n$ 个线程访问同一个 bank 的<b>不同</b>地址</p>")


@pytest.mark.parametrize(
    ("rich_text", "markdown"),
    [
        # "**" between a letter and punctuation neither opens nor closes.
        ("<p>中文<b>“引号”</b>中文</p>", "中文<b>“引号”</b>中文"),
        ("<p>设<b>$x$</b>为</p>", "设<b>$x$</b>为"),
        ("<p>x<s>（删）</s>y</p>", "x<s>（删）</s>y"),
        # Runs of the same marker would merge.
        ("<p><b>a</b><i>b</i></p>", "<b>a</b>*b*"),
        ("<p><b><i>x</i></b></p>", "**<i>x</i>**"),
        # Where Markdown works it is used.
        ("<p><b>粗体</b>，接着</p>", "**粗体**，接着"),
        ("<p><a href='u'><b>x</b></a></p>", "[**x**](u)"),
    ],
)
def test_emphasis_markdown_would_misread_is_written_as_html(rich_text, markdown):
    assert assert_reads_back(rich_text) == markdown


def test_links():
    resolver = OfflineResolver(
        pages={7: "../notes/x.md"}, documents={3: "/documents/3/a.pdf"}
    )
    markdown = md(
        '<p><a href="https://en.wikipedia.org/wiki/Roofline_(model)">roof <i>line</i></a>, '
        '<a href="https://x.org/a b">spaced</a>, <a linktype="page" id="7">page</a>, '
        '<a linktype="document" id="3">doc</a>, <a linktype="page" id="99">gone</a></p>',
        resolver,
    )
    assert markdown == (
        "[roof *line*](https://en.wikipedia.org/wiki/Roofline_(model)), "
        "[spaced](<https://x.org/a b>), [page](../notes/x.md), "
        "[doc](/documents/3/a.pdf), gone"
    )
    assert resolver.warnings == ["link to missing page 99 kept as text"]


def test_line_breaks_become_hard_breaks():
    assert assert_reads_back("<p>one<br/>two<br/><br/>three</p>") == (
        "one\\\ntwo\\\n\\\nthree"
    )
    # A break that ends a paragraph says nothing in Markdown.
    assert md("<p>one<br/></p>") == "one"


def test_lists_nest_and_two_lists_in_a_row_stay_apart():
    rich = (
        '<p data-block-key="a">intro</p>'
        "<ul><li>one<ul><li>nested <b>bold</b></li></ul></li><li>two</li></ul>"
        "<ul><li>second list</li></ul>"
        "<ol><li>first</li><li>second<ol><li>inner</li></ol></li></ol>"
        "<ol><li>again</li></ol>"
    )
    markdown = assert_reads_back(rich)
    assert markdown == (
        "intro\n\n"
        "- one\n  - nested **bold**\n- two\n\n"
        "* second list\n\n"
        "1. first\n2. second\n   1. inner\n\n"
        "1) again"
    )


@pytest.mark.django_db
def test_every_demo_paragraph_reads_back(home):
    """Each rich text of the demo blog, exported and read back, is the same."""
    call_command("load_demo", verbosity=0)
    home.refresh_from_db()
    rich_texts = [home.intro]
    bodies = [series.intro for series in SeriesPage.objects.all()]
    bodies += [post.body for post in PostPage.objects.all()]
    for body in bodies:
        for block in body.get_prep_value():
            value = block["value"]
            if block["type"] == "paragraph":
                rich_texts.append(value)
            elif block["type"] == "callout":
                rich_texts.append(value["body"])
            elif block["type"] == "quote":
                rich_texts.append(value["quote"])
    assert len(rich_texts) > 50
    # Links between posts are written as links to the posts' URLs.
    urls = OfflineResolver(pages={page.pk: page.url for page in Page.objects.all()})
    for rich_text in rich_texts:
        assert_reads_back(rich_text, urls)


def test_escape_text_escapes_a_formula_markdown_would_not_read():
    # After a digit "$" opens no formula in Markdown: its text must survive as text.
    assert escape_text("2$a*b$") == "2$a\\*b$"


def test_an_ordered_list_keeps_its_first_number():
    # The second half of a list the importer split around an image.
    markdown = assert_reads_back('<ol start="3"><li>third</li><li>fourth</li></ol>')
    assert markdown == "3. third\n4. fourth"


def test_brackets_in_link_text_are_written_so_the_link_reads_back_whole():
    markdown = assert_reads_back(
        '<p><a href="https://x.org/p">《指南》[Blog post]. Retrieved</a> and '
        '<a href="https://x.org/q">a ] b [d](e) c [</a></p>'
    )
    # A matched pair stays as typed; a lone bracket is escaped, "[" as an
    # entity since "\[" may open display math.
    assert markdown == (
        "[《指南》[Blog post]. Retrieved](https://x.org/p) and "
        "[a \\] b &#91;d\\](e) c &#91;](https://x.org/q)"
    )
