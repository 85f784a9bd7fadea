"""`manage.py export_markdown`: the page tree as folders of Markdown.

The conversions are checked on their own (rich text and every block to the
Markdown of docs/markdown-format.md), then the command on a site, and last the
round trip: export the demo blog plus the cases it lacks, empty the site, import
the folder with `import_markdown`, and compare the pages.
"""

import datetime
import hashlib
import html
import io
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.core.files.images import ImageFile
from django.core.management import call_command
from django.core.management.base import CommandError
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from PIL import Image as PILImage
from taggit.models import Tag
from wagtail.contrib.redirects.models import Redirect
from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import ArchivePage, PostPage, SeriesPage, TagIndexPage
from rendering.markdown import math_plugin
from vault.exporter.blocks import (
    block_to_markdown,
    body_to_markdown,
    document,
    front_matter,
)
from vault.exporter.richtext import (
    OfflineResolver,
    code_span,
    escape_text,
    parse_html,
    rich_text_to_markdown,
)
from vault.exporter.tree import ExportError, export_site

# --- Reading Markdown back -------------------------------------------------
# What an importer does with prose: CommonMark with strikethrough, inline HTML
# (<sup>, <sub>), dollar and bracket math like rendering, formulas kept as
# their source and "\$" kept as "\$". Used to check that the export says what
# the rich text said, independently of vault.importer.


def _reader() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
    md.use(math_plugin, blocks=False)
    md.disable("text_join")  # keep escapes apart, to tell "\$" from "$"

    def math(self, tokens, idx, options, env):
        token = tokens[idx]
        closer = "\\)" if token.markup == "\\(" else token.markup
        return html.escape(token.markup + token.content + closer, quote=False)

    def special(self, tokens, idx, options, env):
        token = tokens[idx]
        if token.info == "escape" and token.content == "$":
            return "\\$"
        return html.escape(token.content, quote=False)

    for name in ("math_inline", "math_inline_double"):
        md.add_render_rule(name, math)
    md.add_render_rule("text_special", special)
    return md


READER = _reader()

_TAGS = {"strong": "b", "em": "i", "del": "s", "strike": "s"}


def canonical_html(markup: str, page_url=None) -> str:
    """Return rich text with what may differ and mean the same normalised away.

    Tag spellings (strong/b…), block keys, whitespace and empty paragraphs;
    page links become their target's URL path (``page_url``).
    """

    def walk(node) -> str:
        if isinstance(node, str):
            return html.escape(node, quote=False)
        tag = _TAGS.get(node.tag, node.tag)
        inner = "".join(walk(child) for child in node.children)
        if tag in ("span", "root"):
            return inner
        if tag == "br":
            return "<br>"
        if tag == "p" and not inner.strip():
            return ""
        attrs = ""
        if tag == "a":
            if node.attrs.get("linktype") == "page":
                target = page_url(int(node.attrs["id"])) if page_url else None
                attrs = f' page="{target}"'
            else:
                attrs = f' href="{unquote(node.attrs.get("href", ""))}"'
        return f"<{tag}{attrs}>{inner}</{tag}>"

    text = re.sub(r"\s+", " ", walk(parse_html(markup or "")))
    return re.sub(r"\s*(</?(?:p|ul|ol|li)>|<br>)\s*", r"\1", text).strip()


def read_prose(markdown: str) -> str:
    return canonical_html(READER.render(markdown))


def assert_reads_back(rich_text: str, resolver=None) -> str:
    markdown = rich_text_to_markdown(rich_text, resolver or OfflineResolver())
    assert read_prose(markdown) == canonical_html(rich_text), markdown
    return markdown


def md(rich_text: str, resolver=None) -> str:
    return rich_text_to_markdown(rich_text, resolver or OfflineResolver())


# --- Rich text to Markdown -------------------------------------------------


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
    rich_texts += [series.intro for series in SeriesPage.objects.all()]
    for post in PostPage.objects.all():
        for block in post.body.get_prep_value():
            value = block["value"]
            if block["type"] == "paragraph":
                rich_texts.append(value)
            elif block["type"] == "callout":
                rich_texts.append(value["body"])
            elif block["type"] == "quote":
                rich_texts.append(value["quote"])
    assert len(rich_texts) > 50
    for rich_text in rich_texts:
        assert_reads_back(rich_text)


def test_escape_text_escapes_a_formula_markdown_would_not_read():
    # After a digit "$" opens no formula in Markdown: its text must survive as text.
    assert escape_text("2$a*b$") == "2$a\\*b$"


# --- Blocks to Markdown ----------------------------------------------------


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


# --- The command on a site -------------------------------------------------


@pytest.fixture(autouse=True)
def no_oembed_requests(monkeypatch):
    """Fail loudly instead of asking an oEmbed provider over the network."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"tests must not fetch oEmbed for {url}")

    monkeypatch.setattr("wagtail.embeds.embeds.get_finder_for_embed", refuse)


EMBED_URL = "https://www.youtube.com/watch?v=bDcPmZQwV3g"


def add_embed(url: str) -> Embed:
    """Store an oEmbed result, so validation reads it instead of the network."""
    return Embed.objects.create(
        url=url,
        hash=get_embed_hash(url),
        type="video",
        html='<iframe src="https://www.youtube.com/embed/bDcPmZQwV3g"></iframe>',
        title="Video",
        width=560,
        height=315,
    )


def make_image(title: str, color: str, name: str):
    """Return a new image: a small PNG of one colour."""
    buffer = io.BytesIO()
    PILImage.new("RGB", (8, 6), color).save(buffer, format="PNG")
    return get_image_model().objects.create(
        title=title, file=ImageFile(io.BytesIO(buffer.getvalue()), name=name)
    )


def add_post(parent, raw_body, *, live=True, **fields):
    body_block = PostPage._meta.get_field("body").stream_block
    body = body_block.to_python(raw_body)
    body_block.clean(body)
    fields.setdefault("date", datetime.date(2026, 9, 1))
    fields.setdefault("updated", fields["date"])
    tags = fields.pop("tags", ())
    post = PostPage(body=body, live=live, **fields)
    post.tags.add(*tags)
    parent.add_child(instance=post)
    revision = post.save_revision()
    if live:
        revision.publish()
    return post


def add_series(parent, **fields):
    series = SeriesPage(**fields)
    parent.add_child(instance=series)
    series.save_revision().publish()
    return series


# Text that means something in Markdown, in every field that holds text.
TRICKY_BODY = [
    {
        "type": "heading",
        "value": {"text": "Using *ptr, a_b and [x] in C#", "level": "h2"},
    },
    {
        "type": "paragraph",
        "value": "<p># not a heading<br/>1. not a list<br/>- nor this "
        "x<sup>2</sup> H<sub>2</sub>O, \\(a_1\\), &lt;div&gt; &amp;amp; [^1] [[wiki]] "
        "snake_case, __init__, 2 * 3, a*b, ~tilde~, C:\\temp, 中文<b>“引号”</b>中文, "
        "<b>a</b><i>b</i></p>"
        "<ul><li>a</li></ul><ul><li>b</li></ul><p></p>",
    },
    {
        "type": "table",
        "value": {
            "table_caption": "Pipes | and *stars*",
            "table_header_choice": "row",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": [["a | b", "$|x|$"], ["`code`", "*x*"]],
        },
    },
    {"type": "paragraph", "value": "<p>Table: this is a paragraph, not a caption.</p>"},
    {
        "type": "callout",
        "value": {"kind": "info", "title": "a *b* _c_", "body": "<p>body [x]</p>"},
    },
    {
        "type": "quote",
        "value": {"quote": "<p>— not the source</p><p>text</p>", "source": "A *B*"},
    },
    {
        "type": "code",
        "value": {
            "language": "markdown",
            "filename": "my notes.md",
            "code": "```python\nx = 1\n```\n",
            "highlight_lines": "1-2",
            "line_numbers": True,
        },
    },
    {"type": "markdown", "value": "    indented first line\n\n| a |\n| - |\n| 1 |"},
    {"type": "math", "value": {"tex": "a_1 * b", "label": "(2)"}},
    {
        "type": "html_figure",
        "value": {"html": "<svg></svg>", "height": 100, "caption": 'a "b" & <c> -->'},
    },
]


@pytest.fixture
def site(home):
    """The demo blog plus what it lacks: embed, draft, alias, links, nolinenos…"""
    call_command("load_demo", verbosity=0)
    add_embed(EMBED_URL)
    checklist = PostPage.objects.get(slug="cuda-performance-checklist")
    misc = add_series(
        home,
        title="Misc: odds and ends",
        slug="misc",
        intro="<p>Things that fit <b>nowhere</b> else; see "
        f'<a linktype="page" id="{checklist.pk}">the checklist</a>.</p>',
        ordering="explorer",
        cover=make_image("misc cover", "red", "cover.png"),
    )
    add_post(
        misc,
        [
            {"type": "embed", "value": EMBED_URL},
            {"type": "paragraph", "value": "<p>It costs $5 or $10, \\$3 with tax.</p>"},
            {
                "type": "paragraph",
                "value": "<p>A second paragraph block: $x_1 * y_2$, <code>a`b</code>, "
                f'<a linktype="page" id="{checklist.pk}">checklist</a>, '
                '<a href="https://example.com/a_(b)">ext</a>, <s>old</s>.</p>'
                "<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>",
            },
            {
                "type": "code",
                "value": {
                    "language": "bash",
                    "filename": "run.sh",
                    "code": "echo ``hi``",
                    "highlight_lines": "",
                    "line_numbers": False,
                },
            },
        ],
        title="Embed: a video",
        slug="embed-post",
        summary="A post with a video.",
        tags=("video", "CUDA"),
        comments=True,
    )
    add_post(
        misc,
        [{"type": "paragraph", "value": "<p>Not published yet.</p>"}],
        live=False,
        title="Draft post",
        slug="draft-post",
        date=datetime.date(2026, 9, 2),
    )
    linking = PostPage.objects.get(slug="csapp-7-链接")
    csapp = SeriesPage.objects.get(slug="csapp")
    links = {
        "type": "paragraph",
        "value": f'<p>Read <a linktype="page" id="{linking.pk}">链接</a> in '
        f'<a linktype="page" id="{csapp.pk}">the <i>CSAPP</i> series</a>.</p>',
    }
    figure = {
        "type": "image",
        "value": {
            "image": misc.cover_id,
            "alt": "a [x] *y* $z$ C:\\temp",
            "caption": 'say "hi" \\alpha $I^* \\approx 2$ [x]',
        },
    }
    add_post(
        misc,
        [*TRICKY_BODY, links, figure],
        title="[Tricky] *text*: # all",
        slug="tricky",
    )
    drafts = add_series(
        misc, title="Unpublished series", slug="drafts", intro="", ordering="explorer"
    )
    drafts.unpublish()
    aliased = add_post(
        home,
        [{"type": "heading", "value": {"text": "Top level", "level": "h2"}}],
        title="Top-level post",
        slug="top-level",
        date=datetime.date(2026, 7, 1),
        updated=datetime.date(2026, 7, 4),
    )
    Redirect.objects.create(
        old_path="/old/top-level-post", redirect_page=aliased, is_permanent=True
    )
    Redirect.objects.create(old_path="/temp", redirect_page=aliased, is_permanent=False)
    return home


def read_tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def front(text: str) -> str:
    return text.split("\n---\n", 1)[0] + "\n---\n"


@pytest.mark.django_db
def test_export_writes_folders_posts_and_images(site, tmp_path):
    out = tmp_path / "export"
    call_command("export_markdown", str(out), stdout=(stdout := _Buffer()))
    files = read_tree(out)

    assert "notes/csapp/index.md" in files
    assert "notes/csapp/csapp-7-链接.md" in files
    assert "top-level.md" in files
    assert not any(name.startswith(("tags", "archive")) for name in files)
    assert sum(name.endswith(".md") and "/images/" not in name for name in files) == (
        PostPage.objects.count() + SeriesPage.objects.count()
    )
    posts, series = PostPage.objects.count(), SeriesPage.objects.count()
    assert stdout.text.startswith(
        f"Exported {posts} posts, {series} series (2 of them drafts), 3 images → "
    )

    # Images: the original file, beside the Markdown that shows it.
    roofline = get_image_model().objects.get(title__icontains="roofline")
    name = Path(roofline.file.name).name
    with roofline.file.open("rb") as original:
        assert files[f"cuda/images/{name}"] == original.read()
    assert f"](images/{name} " in files["cuda/understanding-h100.md"].decode()

    index = files["misc/index.md"].decode()
    # The storage may have renamed it (cover_AbC1234.png) if the name was taken.
    cover = Path(SeriesPage.objects.get(slug="misc").cover.file.name).name
    assert index == (
        "---\n"
        "title: 'Misc: odds and ends'\n"
        "slug: misc\n"
        "ordering: explorer\n"
        f"cover: images/{cover}\n"
        "weight: 4\n"
        "---\n\n"
        "Things that fit **nowhere** else; see "
        "[the checklist](../cuda/cuda-performance-checklist.md).\n"
    )
    assert f"misc/images/{cover}" in files


@pytest.mark.django_db
def test_front_matter_of_posts(site, tmp_path):
    export_site(tmp_path / "out")
    embed = (tmp_path / "out/misc/embed-post.md").read_text()
    assert front(embed) == (
        "---\n"
        "title: 'Embed: a video'\n"
        "slug: embed-post\n"
        "date: 2026-09-01\n"
        "updated: 2026-09-01\n"
        "tags:\n- cuda\n- video\n"
        "summary: A post with a video.\n"
        "comments: true\n"
        "weight: 1\n"
        "---\n"
    )
    assert "<!-- embed: https://www.youtube.com/watch?v=bDcPmZQwV3g -->" in embed
    assert "\n\n<!-- break -->\n\n" in embed
    assert '\n```bash title="run.sh" nolinenos\n' in embed
    assert "[checklist](../cuda/cuda-performance-checklist.md)" in embed

    draft = (tmp_path / "out/misc/draft-post.md").read_text()
    assert "\ndraft: true\n" in draft
    top = (tmp_path / "out/top-level.md").read_text()
    # Only permanent redirects are aliases.
    assert "\naliases:\n- /old/top-level-post\nweight: 5\n" in top


@pytest.mark.django_db
def test_the_latest_revision_is_exported(site, tmp_path):
    post = PostPage.objects.get(slug="top-level")
    post.title = "Retitled, not yet published"
    post.save_revision()
    export_site(tmp_path / "out")
    text = (tmp_path / "out/top-level.md").read_text()
    assert "title: Retitled, not yet published\n" in text
    assert "draft" not in text  # still live


@pytest.mark.django_db
def test_export_is_deterministic(site, tmp_path):
    export_site(tmp_path / "one")
    export_site(tmp_path / "two")
    assert read_tree(tmp_path / "one") == read_tree(tmp_path / "two")


@pytest.mark.django_db
def test_a_non_empty_outdir_needs_force(site, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty"):
        call_command("export_markdown", str(out))
    assert read_tree(out) == {"keep.txt": b"mine"}

    call_command("export_markdown", str(out), "--force", stdout=_Buffer())
    files = read_tree(out)
    assert "keep.txt" not in files
    assert "top-level.md" in files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no leftovers


@pytest.mark.django_db
def test_an_empty_outdir_is_used(site, tmp_path):
    (tmp_path / "out").mkdir()
    export_site(tmp_path / "out")
    assert (tmp_path / "out/top-level.md").exists()


@pytest.mark.django_db
def test_a_failed_export_leaves_nothing_behind(site, tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("vault.exporter.tree.body_to_markdown", fail)
    with pytest.raises(RuntimeError):
        export_site(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.django_db
def test_reserved_names_are_not_used_for_pages(home, tmp_path):
    add_series(home, title="Images", slug="images", intro="", ordering="explorer")
    add_post(home, [], title="Index", slug="index")
    export_site(tmp_path / "out")
    files = read_tree(tmp_path / "out")
    assert "images-2/index.md" in files
    assert "index-2.md" in files
    assert "slug: index\n" in files["index-2.md"].decode()


@pytest.mark.django_db
def test_what_cannot_be_exported_is_reported(home, tmp_path):
    gone = add_post(home, [], title="Gone", slug="gone")
    link = f'<p>See <a linktype="page" id="{gone.pk}">gone</a>.</p>'
    add_post(home, [{"type": "paragraph", "value": link}], title="L", slug="l")
    gone.delete()
    stderr = _Buffer()
    call_command(
        "export_markdown", str(tmp_path / "out"), stdout=_Buffer(), stderr=stderr
    )
    assert stderr.text == (
        f"warning: l.md: link to missing page {gone.pk} kept as text\n"
    )
    assert (tmp_path / "out/l.md").read_text().endswith("\nSee gone.\n")


def test_export_refuses_a_file_as_outdir(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError):
        export_site(tmp_path / "file")


class _Buffer:
    """A stdout for call_command that keeps what was written."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass


# --- The round trip --------------------------------------------------------


def image_key(image_id):
    if image_id is None:
        return None
    image = get_image_model().objects.get(pk=image_id)
    with image.file.open("rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def relative_url(page, home) -> str:
    return page.url_path[len(home.url_path) - 1 :]


def body_key(body, page_url) -> list:
    """Return (block type, comparable value) for each block of a body."""

    def rich(markup):
        return canonical_html(markup, page_url)

    def plain(text):
        return " ".join((text or "").split())

    blocks = []
    for raw in body.raw_data:
        kind, value = raw["type"], raw["value"]
        if kind == "heading":
            value = (plain(value["text"]), value["level"])
        elif kind == "paragraph":
            value = rich(value)
        elif kind == "image":
            value = (image_key(value["image"]), value["alt"], plain(value["caption"]))
        elif kind == "callout":
            value = (value["kind"], plain(value["title"]), rich(value["body"]))
        elif kind == "quote":
            value = (rich(value["quote"]), value["source"])
        elif kind == "code":
            value = dict(
                value, highlight_lines="".join(value["highlight_lines"].split())
            )
        elif kind == "table":
            cells = [[plain(cell) for cell in row] for row in value["data"]]
            value = (cells, plain(value["table_caption"]))
        elif kind == "html_figure":
            value = (value["html"], value["height"], plain(value["caption"]))
        elif kind == "embed":
            value = value["url"] if isinstance(value, dict) else value
        blocks.append((kind, value))
    return blocks


def snapshot(home) -> list[tuple[str, dict]]:
    """Return (url, fields) for every exported page, in explorer order."""

    def page_url(page_id):
        return relative_url(Page.objects.get(pk=page_id), home)

    pages = []
    for page in home.get_descendants().specific().order_by("path"):
        if isinstance(page, TagIndexPage | ArchivePage):
            continue
        latest = page.get_latest_revision_as_object()
        fields = {"type": type(page).__name__, "title": latest.title, "live": page.live}
        if isinstance(page, SeriesPage):
            fields |= {
                "ordering": latest.ordering,
                "intro": canonical_html(latest.intro, page_url),
                "cover": image_key(latest.cover_id),
            }
        else:
            fields |= {
                "date": latest.date,
                "updated": latest.updated,
                "tags": sorted(tag.name.lower() for tag in latest.tags.all()),
                "summary": latest.summary,
                "comments": latest.comments,
                "cover": image_key(latest.cover_id),
                "body": body_key(latest.body, page_url),
            }
        pages.append((relative_url(page, home), fields))
    return pages


def aliases(home) -> set[tuple[str, str]]:
    """Return (old path, target URL) for each permanent redirect to another path."""
    found = set()
    for redirect in Redirect.objects.filter(is_permanent=True).select_related(
        "redirect_page"
    ):
        if redirect.redirect_page is None:
            continue
        target = relative_url(redirect.redirect_page, home)
        if Redirect.normalise_path(target) != redirect.old_path:
            found.add((redirect.old_path, target))
    return found


@pytest.mark.django_db
def test_importing_the_export_into_an_empty_site_gives_the_same_pages(site, tmp_path):
    before, redirects_before = snapshot(site), aliases(site)
    assert {kind for _, fields in before for kind, _ in fields.get("body", [])} == {
        "heading", "paragraph", "markdown", "code", "math", "image", "table",
        "callout", "quote", "embed", "html_figure",
    }  # fmt: skip
    out = tmp_path / "export"
    export_site(out)

    for child in site.get_children().not_type(TagIndexPage, ArchivePage):
        child.delete()
    get_image_model().objects.all().delete()
    Redirect.objects.all().delete()
    Tag.objects.all().delete()
    assert snapshot(site) == []

    call_command("import_markdown", str(out), stdout=_Buffer(), stderr=_Buffer())

    after = snapshot(site)
    assert [url for url, _ in after] == [url for url, _ in before]
    for (url, expected), (_, got) in zip(before, after, strict=True):
        for name in expected:
            if name == "body":
                for index, (want, have) in enumerate(
                    zip(expected["body"], got["body"], strict=False)
                ):
                    assert have == want, f"{url} block {index}"
                assert len(got["body"]) == len(expected["body"]), url
            else:
                assert got[name] == expected[name], f"{url} {name}"
    assert aliases(site) == redirects_before


def round_trip_paragraph(home, tmp_path, rich_text: str) -> str:
    """Export a post holding one paragraph, import it into an empty site; return it."""
    add_post(home, [{"type": "paragraph", "value": rich_text}], title="P", slug="p")
    export_site(tmp_path / "out")
    PostPage.objects.get(slug="p").delete()
    call_command(
        "import_markdown", str(tmp_path / "out"), stdout=_Buffer(), stderr=_Buffer()
    )
    return PostPage.objects.get(slug="p").body.raw_data[0]["value"]


@pytest.mark.django_db
def test_dollars_come_back_byte_for_byte(home, tmp_path):
    rich_text = "<p>It costs $5 or $10, \\$3 with tax; $x$.</p>"
    assert round_trip_paragraph(home, tmp_path, rich_text) == rich_text


@pytest.mark.django_db
def test_literal_double_brackets_stay_text(home, tmp_path):
    rich_text = "<p>Obsidian writes [[note]] for a link.</p>"
    assert round_trip_paragraph(home, tmp_path, rich_text) == rich_text
