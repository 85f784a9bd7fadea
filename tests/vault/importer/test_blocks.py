"""Markdown bodies become StreamField blocks; no database needed."""

import pytest

from tests.vault.importer.parsing import parse, types
from vault.importer.inline import LINK_MARKER


def test_headings_prose_and_lists_become_heading_and_paragraph_blocks():
    body = parse(
        """
        # Title

        Intro with **bold**, *it*, `code`, ~~gone~~, $x^2$ and \\(y\\), a [link](https://e.com/?a=1&b=2).
        Second line.

        - one
          - nested
        1. first

        ### Three
        ##### Five
        # Another H1
        """,
        title="Title",
    )
    assert types(body) == ["paragraph", "heading", "heading", "heading"]
    assert body.blocks[0].value == (
        "<p>Intro with <b>bold</b>, <i>it</i>, <code>code</code>, <s>gone</s>, "
        '$x^2$ and \\(y\\), a <a href="https://e.com/?a=1&amp;b=2">link</a>.\n'
        "Second line.</p>"
        "<ul><li>one<ul><li>nested</li></ul></li></ul><ol><li>first</li></ol>"
    )
    assert [b.value for b in body.blocks[1:]] == [
        {"text": "Three", "level": "h3"},
        {"text": "Five", "level": "h4"},
        {"text": "Another H1", "level": "h2"},
    ]


def test_the_first_h1_gives_the_title_when_there_is_none():
    body = parse("# 从标题来\n\ntext\n", title=None)
    assert body.h1 == "从标题来"
    assert types(body) == ["paragraph"]


def test_dollars_stay_as_written_and_html_is_escaped():
    body = parse("Costs \\$5 or $10 < $20 & more, `a\\$b` and $x\\$y$\n")
    assert body.blocks[0].value == (
        "<p>Costs \\$5 or $10 &lt; $20 &amp; more, <code>a\\$b</code> and $x\\$y$</p>"
    )


def test_escaped_double_brackets_are_text_not_a_wikilink():
    body = parse("Obsidian writes [[note\\]\\] for a link; [[real]] is one.\n")
    assert [ref.url for ref in body.links] == ["real"]
    assert body.blocks[0].value.startswith("<p>Obsidian writes [[note]] for a link; ")


def test_a_break_comment_separates_paragraph_blocks():
    body = parse("one\n\ntwo\n\n<!-- break -->\n\nthree\n")
    assert [b.value for b in body.blocks] == ["<p>one</p><p>two</p>", "<p>three</p>"]


def test_display_math_blocks_with_labels_lines_and_one_liners():
    body = parse(
        r"""
        Text before.
        $$a = b$$
        Text after.

        <!-- label: 2 -->
        $$
        E = mc^2
        $$

        <!-- numbered -->
        ```math
        \int_0^1 x\,dx
        ```
        """
    )
    assert types(body) == ["paragraph", "math", "paragraph", "math", "math"]
    assert body.blocks[1].value == {"tex": "a = b", "label": "", "numbered": False}
    assert body.blocks[3].value == {"tex": "E = mc^2", "label": "2", "numbered": False}
    assert body.blocks[4].value["tex"] == r"\int_0^1 x\,dx"
    assert body.blocks[4].value["numbered"] is True
    assert [(f.tex.strip(), f.display, f.line) for f in body.formulas] == [
        ("a = b", True, 2),
        ("E = mc^2", True, 6),
        (r"\int_0^1 x\,dx", True, 11),
    ]


def test_formula_lines_count_from_the_first_body_line():
    body = parse("a\nb $x$\n\nc $\\frac{1}{$ d\n", first_line=5)
    assert [(f.tex, f.line) for f in body.formulas] == [("x", 6), ("\\frac{1}{", 8)]


def test_code_fences_keep_language_title_highlights_and_line_numbers():
    body = parse(
        """
        ```cuda title="gemm.cu" {2-3}
        a
        b
        c
        ```

        ```c++
        int x;
        ```

        ```sh
        ls
        ```

        ```python filename=bench.py nolinenos
        pass
        ```

        ```klingon
        +.
        ```

        ```cu {9}
        one line
        ```
        """
    )
    values = [b.value for b in body.blocks]
    assert values[0] == {
        "language": "cuda",
        "filename": "gemm.cu",
        "code": "a\nb\nc",
        "highlight_lines": "2-3",
        "line_numbers": True,
    }
    assert [v["language"] for v in values] == [
        "cuda",
        "cpp",
        "bash",
        "python",
        "text",
        "cuda",
    ]
    assert values[3]["filename"] == "bench.py"
    assert values[3]["line_numbers"] is False
    assert values[5]["highlight_lines"] == ""
    messages = [w.message for w in body.warnings]
    assert "unknown code language 'klingon'; imported as text" in messages
    assert any("the code has 1 lines" in m for m in messages)


def test_a_table_with_its_caption_and_inline_math():
    body = parse(
        """
        | 格式 | 最大值 |
        | :-- | --: |
        | FP8 | $448$ |
        | `INT8` | 127 \\| 128 |

        Table: 数值格式与 $\\max$
        """
    )
    [table] = body.blocks
    assert table.type == "table"
    assert table.value == {
        "table_caption": "数值格式与 $\\max$",
        "table_header_choice": "row",
        "first_row_is_table_header": True,
        "first_col_is_header": False,
        "data": [["格式", "最大值"], ["FP8", "$448$"], ["INT8", "127 | 128"]],
    }


@pytest.mark.parametrize(
    "marker, kind, title",
    [
        ("[!NOTE]", "note", ""),
        ("[!tip] 自定义标题", "tip", "自定义标题"),
        ("[!WARNING]- 折叠", "warning", "折叠"),
        ("[!danger]+", "danger", ""),
        ("[!INFO]", "info", ""),
        ("[!IMPORTANT]", "info", ""),
        ("[!CAUTION]", "warning", ""),
        ("[!ERROR]", "danger", ""),
        ("[!BUG]", "danger", ""),
        ("[!HINT]", "tip", ""),
        ("[!SUMMARY]", "info", ""),
        ("[!QUESTION]", "info", ""),
        ("[!EXAMPLE]", "note", ""),
        ("[!QUOTE]", "note", ""),
        ("[!unheard-of]", "note", ""),
    ],
)
def test_callouts_of_every_kind(marker, kind, title):
    body = parse(f"> {marker}\n> 正文 $x$。\n>\n> - 列表\n")
    [callout] = body.blocks
    assert callout.type == "callout"
    assert callout.value == {
        "kind": kind,
        "title": title,
        "body": "<p>正文 $x$。</p><ul><li>列表</li></ul>",
    }


def test_a_one_line_callout_keeps_its_text_as_the_body():
    [callout] = parse("> [!TIP] 先测带宽\n").blocks
    assert callout.value == {"kind": "tip", "title": "", "body": "<p>先测带宽</p>"}


def test_a_callout_holding_code_is_kept_as_markdown():
    text = "> [!NOTE] 代码\n> ```c\n> int x;\n> ```\n"
    [block] = parse(text).blocks
    assert block.type == "markdown"
    assert block.value == text.strip("\n")


def test_a_quote_with_a_source():
    body = parse(
        "> Premature optimization is the root of all evil.\n> — Donald Knuth\n"
    )
    [quote] = body.blocks
    assert quote.value == {
        "quote": "<p>Premature optimization is the root of all evil.</p>",
        "source": "Donald Knuth",
    }
    [plain] = parse("> just a quote\n").blocks
    assert plain.value == {"quote": "<p>just a quote</p>", "source": ""}


def test_a_footnoted_paragraph_becomes_markdown_with_its_definitions():
    body = parse(
        """
        Before.

        A claim[^1] and another[^note].

        After.

        [^1]: First note,
            on two lines.
        [^note]: Second note.
        [^unused]: Never referenced.
        """
    )
    assert types(body) == ["paragraph", "markdown", "paragraph"]
    assert body.blocks[1].value == (
        "A claim[^1] and another[^note].\n\n"
        "[^1]: First note,\n    on two lines.\n\n"
        "[^note]: Second note."
    )
    assert [(w.line, w.message) for w in body.warnings] == [
        (10, "footnote [^unused] is never referenced; dropped")
    ]


def test_display_math_inside_a_list_keeps_the_list_as_markdown():
    text = "- item: $$a = b$$\n- other\n"
    [block] = parse(text).blocks
    assert block.type == "markdown"
    assert block.value == text.strip("\n")


def test_mermaid_fences_become_diagram_blocks_and_an_empty_one_is_reported():
    body = parse(
        """
        ```mermaid
        flowchart LR
            A[主机] --> B[设备]
        ```

        ```Mermaid
        pie
        ```

        ```mermaid
        ```
        """
    )
    assert [(b.type, b.value) for b in body.blocks] == [
        ("diagram", {"source": "flowchart LR\n    A[主机] --> B[设备]"}),
        ("diagram", {"source": "pie"}),
    ]
    assert [(w.line, w.message) for w in body.warnings] == [
        (10, "empty mermaid diagram dropped")
    ]


def test_links_to_other_files_are_markers_until_pages_exist():
    body = parse(
        "See [x](other.md#part), [[name]], [[name|text]], [[dir/name#h]] and "
        "[web](https://e.com/a.md).\n"
    )
    [paragraph] = body.blocks
    markers = LINK_MARKER.findall(paragraph.value)
    assert len(markers) == 4
    assert [(ref.url, ref.wiki, ref.label_html) for ref in body.links] == [
        ("other.md#part", False, "x"),
        ("name", True, "name"),
        ("name", True, "text"),
        ("dir/name", True, "dir/name &gt; h"),
    ]
    assert '<a href="https://e.com/a.md">web</a>' in paragraph.value


def test_a_long_run_of_spaces_inside_a_paragraph_is_kept_and_edges_trimmed():
    # 200,000 spaces: trimming the paragraph's edges once took quadratic time.
    body = parse("a" + " " * 200_000 + "b  \n<br>\n")
    (block,) = body.blocks
    assert block.value == "<p>a" + " " * 200_000 + "b</p>"


def test_a_run_of_footnote_openers_is_text_found_in_linear_time():
    # 20,000 "[^": looking for their labels once took quadratic time.
    body = parse("[^" * 20_000 + " and [^x] here\n")
    (block,) = body.blocks
    assert block.value.count("[^") == 20_001
    assert [w.message for w in body.warnings] == [
        "footnote [^x] has no definition; kept as text"
    ]
