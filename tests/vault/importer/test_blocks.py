"""Markdown bodies become StreamField blocks; no database needed."""

import textwrap

import pytest
from PIL import Image

from tests.steps import grows_linearly, lines_run
from vault.importer.assets import AssetFinder
from vault.importer.body import parse_body
from vault.importer.body.rawhtml import balanced_end
from vault.importer.body.tags import TagDepths
from vault.importer.inline import LINK_MARKER
from vault.importer.parsed import ImageSlot
from vault.importer.tokens import parse_markdown


def parse(text, tmp_path=None, **kwargs):
    text = textwrap.dedent(text).lstrip("\n")
    if tmp_path is not None:
        kwargs.setdefault("base_dir", tmp_path)
        kwargs.setdefault("finder", AssetFinder(tmp_path))
    return parse_body(text, **kwargs)


def types(body):
    return [block.type for block in body.blocks]


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


def test_images_become_image_blocks_and_missing_ones_warn(tmp_path):
    Image.new("RGB", (2, 2)).save(tmp_path / "a b.png")
    body = parse(
        """
        ![替代](a%20b.png "图 1：$x$")

        Text ![inline](<a b.png>) more text.

        ![](C:%5CUsers%5Cme%5Cgone.png)

        ![](https://example.com/x.png)
        """,
        tmp_path,
    )
    # The missing image leaves nothing behind: the prose around it joins up; the
    # remote one is shown from its URL.
    assert types(body) == ["image", "paragraph", "image", "paragraph", "image"]
    assert body.blocks[0].value == {
        "image": ImageSlot(0),
        "alt": "替代",
        "caption": "图 1：$x$",
    }
    assert body.blocks[1].value == "<p>Text</p>"
    assert body.blocks[3].value == "<p>more text.</p>"
    assert body.blocks[4].value == {
        "image": ImageSlot(2),
        "url": "https://example.com/x.png",
        "alt": "",
        "caption": "",
    }
    assert [img.path.name for img in body.images[:2]] == ["a b.png", "a b.png"]
    assert (body.images[2].path, body.images[2].url) == (
        None,
        "https://example.com/x.png",
    )
    assert [(w.line, w.message) for w in body.warnings] == [
        (5, "missing image: C:\\Users\\me\\gone.png"),
    ]
    assert [f.tex for f in body.formulas] == ["x"]


def test_raw_html_becomes_html_figures(tmp_path):
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "plot.html").write_text("<p>plot</p>", "utf-8")
    body = parse(
        """
        <iframe src="figs/plot.html" height="300" title="交互图"></iframe>

        <svg viewBox="0 0 10 10">
          <rect/>

        </svg>

        <iframe src="figs/missing.html"></iframe>

        <div class="x">
        <b>raw</b>
        </div>
        """,
        tmp_path,
    )
    assert [b.value for b in body.blocks] == [
        {"html": "<p>plot</p>", "height": 300, "caption": "交互图"},
        {"image": ImageSlot(0), "alt": "", "caption": ""},
        {"html": '<div class="x">\n<b>raw</b>\n</div>', "height": 420, "caption": ""},
    ]
    # The drawing is a file of its own: namespaced, so a browser draws it.
    assert body.images[0].data == (
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n'
        b"  <rect/>\n\n</svg>"
    )
    assert body.images[0].name.endswith(".svg")
    assert [w.message for w in body.warnings] == [
        "missing figure file: figs/missing.html"
    ]


def test_nested_html_closes_where_its_depth_falls_back():
    body = parse(
        """
        <div class="outer">
        <div>inner</div>

        <p>still inside</p>
        </div>

        Prose between.

        <section><div>
        </div>

        </section>
        """
    )
    assert [(b.type, b.line) for b in body.blocks] == [
        ("html_figure", 1),
        ("paragraph", 7),
        ("html_figure", 9),
    ]
    assert body.blocks[0].value["html"].endswith("still inside</p>\n</div>")
    assert body.blocks[2].value["html"].endswith("</section>")


def test_unclosed_divs_are_figures_each_with_a_warning_in_linear_time():
    n = 3_000
    body = parse("<div>\n\n" * n)
    assert [b.value["html"] for b in body.blocks] == ["<div>"] * n
    assert [w.line for w in body.warnings] == [1 + 2 * k for k in range(n)]
    assert body.warnings[0].message == "<div> is never closed"

    def steps(count: int) -> int:
        return lines_run(
            lambda: parse("<div>\n\n" * count),
            [
                balanced_end,
                TagDepths.__init__,
                TagDepths.closing_line,
            ],
        )

    assert grows_linearly(steps, 500)


def test_block_regions_embeds_are_kept_verbatim():
    body = parse(
        """
        <!-- block:markdown -->
        Kept *as is*, with a fence:
        ```
        <!-- /not the end -->
        ```
        <!-- /block -->

        <!-- block:html_figure height="90" caption="说明 &quot;引号&quot;" -->
        <canvas></canvas>

        <script>go()</script>
        <!-- /block -->

        <!-- embed: https://www.youtube.com/watch?v=x -->
        """
    )
    assert [(b.type, b.value) for b in body.blocks] == [
        ("markdown", "Kept *as is*, with a fence:\n```\n<!-- /not the end -->\n```"),
        (
            "html_figure",
            {
                "html": "<canvas></canvas>\n\n<script>go()</script>",
                "height": 90,
                "caption": '说明 "引号"',
            },
        ),
        ("embed", "https://www.youtube.com/watch?v=x"),
    ]


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


def test_a_region_comment_inside_a_fence_or_a_list_is_not_a_region():
    body = parse(
        """
        ```markdown
        <!-- block:markdown -->
        ```
        <!-- /block -->

        - item
          <!-- block:markdown -->
          in the list
          <!-- /block -->

        <!-- block:markdown -->
        A real one.
        <!-- /block -->
        """
    )
    assert [b.type for b in body.blocks] == ["code", "markdown", "markdown"]
    assert body.blocks[0].value["code"] == "<!-- block:markdown -->"
    # The list holds raw HTML, so it is kept as Markdown, comments and all.
    assert body.blocks[1].value.startswith("- item\n  <!-- block:markdown -->")
    assert body.blocks[2].value == "A real one."
    assert body.errors == []


def test_many_regions_are_found_with_a_few_parses(monkeypatch):
    from vault.importer.body import regions

    documents = []  # parses of the whole document (each region is parsed alone too)
    monkeypatch.setattr(
        regions,
        "parse_markdown",
        lambda text, env=None: (
            documents.append(1) if len(text) > 1000 else None,
            parse_markdown(text, env),
        )[1],
    )
    # Each region holds an unclosed fence, which would swallow the rest.
    region = "<!-- block:markdown -->\n```\nx = {n}\n<!-- /block -->\n\n"
    body = parse("".join(region.format(n=n) for n in range(300)))
    assert [b.value for b in body.blocks] == [f"```\nx = {n}" for n in range(300)]
    assert len(documents) == 1

    # Thousands of region comments that are not regions (in a list) cost a
    # bounded number of parses, and the text stays.
    documents.clear()
    body = parse("- <!-- block:markdown -->\n  item\n  <!-- /block -->\n" * 3_000)
    assert len(documents) <= 12
    assert body.blocks[0].value.count("item") == 3_000


def test_an_unclosed_region_is_an_error_at_its_line():
    body = parse("text\n\n<!-- block:markdown -->\nrest\n")
    assert [(e.line, e.message) for e in body.errors] == [
        (3, "<!-- block:markdown --> is never closed by <!-- /block -->")
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


# MkDocs syntax ---------------------------------------------------------------


def test_mkdocs_admonitions_become_callouts():
    body = parse(
        """
        !!! note "Read *this* first"
            The kernel needs $O(n)$ memory.

            - load
            - store

        !!! warning
            Check the return code.

        ??? tip "Folded"
            Shown open.

        ???+ abstract
            Summary.

        !!! note ""
            No title bar.

        !!! note "Only a title"
        """
    )

    assert [(b.type, b.line) for b in body.blocks] == [
        ("callout", 1),
        ("callout", 7),
        ("callout", 10),
        ("callout", 13),
        ("callout", 16),
        ("callout", 19),
    ]
    assert [b.value for b in body.blocks] == [
        {
            "kind": "note",
            "title": "Read this first",
            "body": "<p>The kernel needs $O(n)$ memory.</p>"
            "<ul><li>load</li><li>store</li></ul>",
        },
        {"kind": "warning", "title": "", "body": "<p>Check the return code.</p>"},
        {"kind": "tip", "title": "Folded", "body": "<p>Shown open.</p>"},
        {"kind": "info", "title": "", "body": "<p>Summary.</p>"},
        {"kind": "note", "title": "", "body": "<p>No title bar.</p>"},
        {"kind": "note", "title": "", "body": "<p>Only a title</p>"},
    ]
    assert body.warnings == []


def test_an_unknown_admonition_type_is_a_note_with_a_warning():
    body = parse(
        """
        Text.

        !!! sidebar "Aside"
            Kept.
        """
    )

    assert body.blocks[1].value == {
        "kind": "note",
        "title": "Aside",
        "body": "<p>Kept.</p>",
    }
    assert [(w.message, w.line) for w in body.warnings] == [
        ("unknown admonition type !!! sidebar; imported as a note", 3)
    ]


def test_an_admonition_holding_code_math_or_another_admonition_is_kept_as_markdown():
    body = parse(
        """
        !!! info "Build"
            Run:

            ```bash
            make -j
            ```

        !!! note "Outer"
            !!! danger "Inner"
                $$
                x^2
                $$

        Done.
        """
    )

    assert types(body) == ["markdown", "markdown", "paragraph"]
    assert body.blocks[0].value == (
        '!!! info "Build"\n    Run:\n\n    ```bash\n    make -j\n    ```'
    )
    assert body.blocks[1].value.startswith('!!! note "Outer"\n    !!! danger')
    assert [f.tex.strip() for f in body.formulas] == ["x^2"]
    assert body.warnings == []


def test_an_image_in_an_admonition_stays_inside_it(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "fig.png")
    body = parse(
        """
        !!! example "Figure"
            See below.

            ![tile](fig.png)
        """,
        tmp_path,
    )

    # A Markdown block, which renders the admonition as a callout with the image
    # in it; the image itself goes into the media library.
    assert types(body) == ["markdown"]
    assert body.blocks[0].value == (
        '!!! example "Figure"\n    See below.\n\n    ![tile](\ue0030\ue004)'
    )
    assert [image.path.name for image in body.images] == ["fig.png"]


def test_content_tabs_become_a_heading_per_tab_with_its_content():
    body = parse(
        """
        ## About

        === "中文"

            我写 GPU 内核。

            ```cuda
            __global__ void k() {}
            ```

        === "English"
            I write GPU kernels.

        Both languages end here.
        """
    )

    assert [(b.type, b.value) for b in body.blocks] == [
        ("heading", {"text": "About", "level": "h2"}),
        ("heading", {"text": "中文", "level": "h3"}),
        ("paragraph", "<p>我写 GPU 内核。</p>"),
        (
            "code",
            {
                "language": "cuda",
                "filename": "",
                "code": "__global__ void k() {}",
                "highlight_lines": "",
                "line_numbers": True,
            },
        ),
        ("heading", {"text": "English", "level": "h3"}),
        ("paragraph", "<p>I write GPU kernels.</p><p>Both languages end here.</p>"),
    ]


def test_attribute_lists_are_dropped_from_images_links_and_headings(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "fig.png")
    body = parse(
        """
        # Tiling { #top }

        ![tile](fig.png){ width="200px" }

        See [docs](https://e.com){ width=300 } and ![x](fig.png){: .center } here.

        A line with {: .note } braces inside, and a set {a, b}.
        {: .lead }

        ## Results { .wide align=right style="color: red" }
        """,
        tmp_path,
    )

    assert body.h1 == "Tiling"
    assert types(body) == ["image", "paragraph", "image", "paragraph", "heading"]
    assert body.blocks[1].value == '<p>See <a href="https://e.com">docs</a> and</p>'
    assert body.blocks[3].value == (
        "<p>here.</p><p>A line with {: .note } braces inside, and a set {a, b}.</p>"
    )
    assert body.blocks[4].value == {"text": "Results", "level": "h2"}
    assert body.warnings == []


def test_an_admonition_whose_code_has_two_blank_lines_stays_whole():
    body = parse(
        """
        !!! example "Two functions"
            ```python
            def a():
                pass


            def b():
                pass
            ```

        After.
        """
    )

    assert types(body) == ["markdown", "paragraph"]
    assert body.blocks[0].value.endswith("        pass\n    ```")
    assert body.blocks[1].value == "<p>After.</p>"


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


def test_images_in_headings_are_image_blocks_after_them(tmp_path):
    (tmp_path / "img").mkdir()
    for name in ("me.png", "pku.png", "thu.png"):
        Image.new("RGB", (4, 4)).save(tmp_path / "img" / name)
    body = parse_body(
        textwrap.dedent(
            """\
            # 刘芷溢 ![](img/me.png){ align=right style="width:120px" }

            ## 学校 ![[pku.png|80]] <img src="img/thu.png" alt="清华">

            ### ![](img/gone.png)
            """
        ),
        title=None,
        base_dir=tmp_path,
        finder=AssetFinder(tmp_path),
    )
    assert body.h1 == "刘芷溢"
    assert [(b.type, b.line) for b in body.blocks] == [
        ("image", 1),
        ("heading", 3),
        ("image", 3),
        ("image", 3),
    ]
    assert body.blocks[1].value == {"text": "学校", "level": "h2"}
    assert [(i.path.name, i.alt) for i in body.images] == [
        ("me.png", ""),
        ("pku.png", ""),
        ("thu.png", "清华"),
    ]
    assert [(w.line, w.message) for w in body.warnings] == [
        (5, "missing image: img/gone.png")
    ]
