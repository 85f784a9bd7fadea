"""Every body block to the Markdown of docs/markdown-format.md, and front matter."""

import datetime

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from vault.exporter.blocks import (
    block_to_markdown,
    body_to_markdown,
    document,
    front_matter,
)
from vault.exporter.richtext import (
    OfflineResolver,
)


def block(block_type, value, resolver=None):
    return block_to_markdown(block_type, value, resolver or OfflineResolver())


def test_heading_block():
    assert block("heading", {"text": "共享内存与 $k$-way", "level": "h3"}) == (
        "### 共享内存与 $k$-way"
    )
    assert block("heading", {"text": "Using C# #", "level": "h2"}) == "## Using C# \\#"
    assert block("heading", {"text": "x", "level": "h4"}) == "#### x"


def test_markdown_block_is_kept_verbatim():
    source = "## DRAM\n\n- **x** $a_1$\n\n[^1]: note\n"
    assert block("markdown", source) == (
        f"<!-- block:markdown -->\n{source}\n<!-- /block -->"
    )


def test_a_verbatim_block_holding_the_end_marker_is_reported():
    resolver = OfflineResolver()
    block("markdown", "a\n<!-- /block -->\nb", resolver)
    assert resolver.warnings == [
        "a markdown block holds a <!-- /block --> line: cut there"
    ]


def test_code_block_info_string():
    value = {
        "language": "cuda",
        "filename": "gemm.cu",
        "code": "int a;\nint b;\nint c;",
        "highlight_lines": "2, 3",
        "line_numbers": False,
    }
    assert block("code", value) == (
        '```cuda title="gemm.cu" {2,3} nolinenos\nint a;\nint b;\nint c;\n```'
    )


def test_code_fence_is_longer_than_any_backtick_run_inside():
    value = {"language": "markdown", "code": "````\n```python\nx\n```\n````"}
    assert block("code", value).startswith("`````markdown\n")
    assert block("code", value).endswith("\n`````")


def test_code_block_keeps_indentation_and_trailing_newline():
    value = {"language": "python", "code": "    x = 1\n", "line_numbers": True}
    assert block("code", value) == "```python\n    x = 1\n\n```"


def test_math_block_with_and_without_label():
    assert block("math", {"tex": "a^2", "label": ""}) == "$$\na^2\n$$"
    assert block("math", {"tex": "a^2\n+ b", "label": "6.1"}) == (
        "<!-- label: 6.1 -->\n$$\na^2\n+ b\n$$"
    )


def test_image_block():
    resolver = OfflineResolver(images={4: "images/roof line.png"})
    value = {"image": 4, "alt": "a [x]", "caption": 'H100 "SXM" $I^* \\approx 295$'}
    assert block("image", value, resolver) == (
        '![a [x]](<images/roof line.png> "H100 \\"SXM\\" $I^* \\approx 295$")'
    )
    # The importer reads the alt text raw: only an unbalanced bracket is escaped.
    assert block("image", dict(value, alt="a ] b [c", caption=""), resolver) == (
        "![a \\] b \\[c](<images/roof line.png>)"
    )
    assert block("image", {"image": 4, "alt": "", "caption": ""}, resolver) == (
        "![](<images/roof line.png>)"
    )
    # A display width: MkDocs' attribute list, as the importer reads it.
    assert block("image", dict(value, caption="", width=300), resolver) == (
        '![a [x]](<images/roof line.png>){ width="300" }'
    )


def test_image_block_with_a_missing_image_is_dropped_and_reported():
    resolver = OfflineResolver()
    assert block("image", {"image": 5, "alt": "", "caption": ""}, resolver) == ""
    assert resolver.warnings


def test_table_block():
    value = {
        "table_caption": "HBM 访问量（$M$ 为 SRAM 容量）",
        "first_row_is_table_header": True,
        "data": [["实现", "HBM 读写"], ["a | b", "$|x|$"], ["short"]],
    }
    assert block("table", value) == (
        "| 实现 | HBM 读写 |\n"
        "| --- | --- |\n"
        "| a \\| b | $\\|x\\|$ |\n"
        "| short |  |\n"
        "\n"
        "Table: HBM 访问量（$M$ 为 SRAM 容量）"
    )


def test_table_cells_read_back_with_pipes_in_formulas():
    table = block("table", {"data": [["h"], ["$|x|$ a\\|b"]]})
    reader = MarkdownIt("commonmark").enable("table")
    reader.use(dollarmath_plugin, allow_space=False, allow_digits=False)
    cells = [t for t in reader.parse(table) if t.type == "inline"]
    assert cells[1].children[0].content == "|x|"


def test_callout_block():
    value = {
        "kind": "warning",
        "title": "同步",
        "body": "<p>先调用 <code>__syncthreads()</code>。</p><p>再读。</p>",
    }
    assert block("callout", value) == (
        "> [!WARNING] 同步\n> 先调用 `__syncthreads()`。\n>\n> 再读。"
    )
    assert block("callout", {"kind": "tip", "title": "", "body": "<p>x</p>"}) == (
        "> [!TIP]\n> x"
    )


def test_quote_block():
    value = {"quote": "<p>Premature optimization.</p>", "source": "Donald Knuth"}
    assert block("quote", value) == ("> Premature optimization.\n>\n> — Donald Knuth")
    assert block("quote", {"quote": "<p>x</p>", "source": ""}) == "> x"


def test_embed_block():
    assert block("embed", "https://www.youtube.com/watch?v=x") == (
        "<!-- embed: https://www.youtube.com/watch?v=x -->"
    )


def test_html_figure_block():
    value = {"html": "<svg></svg>", "height": 120, "caption": 'a "b" & $c$'}
    assert block("html_figure", value) == (
        '<!-- block:html_figure height="120" caption="a &quot;b&quot; &amp; $c$" -->\n'
        "<svg></svg>\n"
        "<!-- /block -->"
    )


def test_two_paragraph_blocks_in_a_row_are_kept_apart():
    body = body_to_markdown(
        [
            {"type": "paragraph", "value": "<p>one</p>"},
            {"type": "paragraph", "value": "<p>two</p>"},
            {"type": "heading", "value": {"text": "h", "level": "h2"}},
            {"type": "paragraph", "value": "<p>three</p>"},
        ],
        OfflineResolver(),
    )
    assert body == "one\n\n<!-- break -->\n\ntwo\n\n## h\n\nthree"


def test_a_paragraph_after_a_table_is_not_read_as_its_caption():
    body = body_to_markdown(
        [
            {"type": "table", "value": {"data": [["a"]]}},
            {"type": "paragraph", "value": "<p>Table: not a caption</p>"},
        ],
        OfflineResolver(),
    )
    assert body.endswith("\n\n&#84;able: not a caption")


def test_front_matter_quotes_what_yaml_would_misread():
    text = front_matter(
        {
            "title": "CUDA: a tour",
            "slug": "2024",
            "date": datetime.date(2026, 8, 5),
            "tags": ["cuda", "yes"],
        }
    )
    assert text == (
        "---\ntitle: 'CUDA: a tour'\nslug: '2024'\ndate: 2026-08-05\n"
        "tags:\n- cuda\n- 'yes'\n---\n"
    )


def test_document_ends_with_one_newline():
    assert document({"title": "x"}, "body\n\n") == "---\ntitle: x\n---\n\nbody\n"
    assert document({"title": "x"}, "") == "---\ntitle: x\n---\n"


def test_a_remote_image_is_written_with_its_url():
    value = {
        "image": None,
        "url": "https://example.com/sm.png",
        "alt": "SM",
        "caption": "图 2",
    }
    assert block("image", value) == '![SM](https://example.com/sm.png "图 2")'


def test_a_markdown_block_points_its_library_images_at_their_files():
    resolver = OfflineResolver(images={4: "images/roof line.png", 5: "images/b.png"})
    source = 'Before ![roof](image:4 "t") and ![b](image:5).\n\n![x](image:9)\n'
    assert block("markdown", source, resolver) == (
        "<!-- block:markdown -->\n"
        'Before ![roof](<images/roof line.png> "t") and ![b](images/b.png).\n\n'
        "![x](image:9)\n\n<!-- /block -->"
    )
    assert resolver.warnings == ["Markdown image of missing image 9 kept"]


def test_an_html_figure_points_its_library_images_at_their_files():
    resolver = OfflineResolver(images={4: "images/a&b.png"})
    value = {"html": "<img src=\"image:4\"><img src='image:9'>", "height": 200}
    assert block("html_figure", value, resolver) == (
        '<!-- block:html_figure height="200" -->\n'
        "<img src=\"images/a&amp;b.png\"><img src='image:9'>\n<!-- /block -->"
    )
    assert resolver.warnings == ["HTML figure image of missing image 9 kept"]


def test_diagram_block_is_a_mermaid_fence():
    value = {"source": "flowchart LR\n    A --> B"}
    assert block("diagram", value) == "```mermaid\nflowchart LR\n    A --> B\n```"
