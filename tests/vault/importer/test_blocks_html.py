"""Images, raw HTML and block regions in a body become blocks; no database."""

import textwrap

from PIL import Image

from tests.steps import grows_linearly, lines_run
from tests.vault.importer.parsing import parse, types
from vault.importer.assets import AssetFinder
from vault.importer.body import parse_body
from vault.importer.body.rawhtml import balanced_end
from vault.importer.body.tags import TagDepths
from vault.importer.parsed import ImageSlot
from vault.importer.tokens import parse_markdown


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
