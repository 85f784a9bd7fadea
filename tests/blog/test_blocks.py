"""Every body block renders the markup a reader sees.

Expected HTML is built from the pure renderers in `rendering`, so each test
checks the block's own markup around them exactly (as Wagtail's own
`test_blocks.py` does with `assertHTMLEqual`). The image block's tests are in
test_image_block.py.
"""

from html import escape

import pytest
from pytest_django.asserts import assertHTMLEqual

from blog.blocks import (
    CALLOUT_KINDS,
    CalloutBlock,
    CodeBlock,
    DiagramBlock,
    EmbedBlock,
    HeadingBlock,
    HtmlFigureBlock,
    MarkdownBlock,
    MathBlock,
    ParagraphBlock,
    PostBodyBlock,
    QuoteBlock,
    TableBlock,
)
from rendering import (
    highlight,
    render_inline_text,
    render_markdown,
    render_math,
    render_math_safe,
)
from tests.blog.blocks import (
    VECTOR_ADD,
    VIDEO_HTML,
    VIDEO_URL,
    add_embed,
    code_value,
    heading_html,
    no_oembed_requests,  # noqa: F401 (an autouse fixture)
    soup,
)

# Heading


def test_heading_renders_level_anchor_and_inline_math():
    block = HeadingBlock()
    value = block.to_python({"text": "分块 $B_r$ 与 tile", "level": "h3"})

    assertHTMLEqual(
        block.render(value),
        heading_html("h3", "分块-b-r-与-tile", f"分块 {render_math('B_r')} 与 tile"),
    )


def test_heading_text_is_escaped():
    block = HeadingBlock()
    value = block.to_python({"text": "<b>x</b> & y", "level": "h2"})

    assertHTMLEqual(
        block.render(value), heading_html("h2", "bxb-y", "&lt;b&gt;x&lt;/b&gt; &amp; y")
    )


def test_repeated_heading_text_gets_unique_anchors_in_a_body():
    body = PostBodyBlock()
    value = body.to_python(
        [
            {"type": "heading", "value": {"text": "小结", "level": "h2"}},
            {"type": "paragraph", "value": "<p>第一部分</p>"},
            {"type": "heading", "value": {"text": "小结", "level": "h2"}},
        ]
    )

    assertHTMLEqual(
        body.render(value),
        heading_html("h2", "小结", "小结")
        + '<div class="block-paragraph"><p>第一部分</p></div>'
        + heading_html("h2", "小结-2", "小结"),
    )


def test_heading_block_and_markdown_heading_get_distinct_anchors():
    body = PostBodyBlock()
    value = body.to_python(
        [
            {"type": "heading", "value": {"text": "小结", "level": "h2"}},
            {"type": "markdown", "value": "## 小结\n\n正文"},
        ]
    )

    ids = [tag["id"] for tag in soup(body.render(value)).find_all(id=True)]

    assert len(ids) == len(set(ids)), ids


# Paragraph


def test_paragraph_keeps_money_literal_and_unescapes_dollar():
    block = ParagraphBlock()
    value = block.to_python(
        r"<p>It costs $5 or $10; \$3 is literal; $x^2$ is math.</p>"
    )

    assertHTMLEqual(
        block.render(value),
        '<div class="block-paragraph"><p>It costs $5 or $10; $3 is literal; '
        f"{render_math('x^2')} is math.</p></div>",
    )


def test_paragraph_leaves_math_inside_code_untouched():
    block = ParagraphBlock()
    value = block.to_python("<p><code>$x$</code> 与 $a &lt; b$</p>")

    assertHTMLEqual(
        block.render(value),
        '<div class="block-paragraph">'
        f"<p><code>$x$</code> 与 {render_math('a < b')}</p></div>",
    )


# Markdown


def test_markdown_renders_math_and_escapes_raw_html():
    source = "<script>alert(1)</script>\n\n**粗体** 与 $x$"
    block = MarkdownBlock()

    html = block.render(block.to_python(source))

    assertHTMLEqual(
        html, f'<div class="block-markdown">{render_markdown(source)}</div>'
    )
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert render_math("x") in html


# Code


def test_code_block_shows_language_filename_and_highlighted_line():
    block = CodeBlock()

    html = block.render(code_value(highlight_lines="2"))

    assertHTMLEqual(
        html,
        '<figure class="block-code" data-language="cuda">'
        '<figcaption class="code-caption"><span class="code-language">CUDA</span>'
        '<span class="code-filename">add.cu</span></figcaption>'
        + highlight(VECTOR_ADD, "cuda", highlight_lines=[2], line_numbers=True)
        + "</figure>",
    )
    marked = soup(html).select(".hll")
    assert [line.get_text() for line in marked] == [
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    ]
    assert soup(html).select_one(".kr").get_text() == "__global__"


@pytest.mark.parametrize(("switch", "shown"), [(True, True), (False, False)])
def test_code_line_numbers_follow_the_switch(switch, shown):
    html = CodeBlock().render(code_value(line_numbers=switch))

    numbers = soup(html).select("td.linenos")
    assert bool(numbers) is shown
    if shown:
        assert numbers[0].get_text().split() == ["1", "2", "3", "4"]


def test_code_filename_is_escaped_and_optional():
    block = CodeBlock()

    with_name = block.render(code_value(filename="<b>a&b.cu</b>", language="python"))
    without_name = block.render(code_value(filename=""))

    assert soup(with_name).select_one(".code-filename").get_text() == "<b>a&b.cu</b>"
    assert "&lt;b&gt;a&amp;b.cu&lt;/b&gt;" in with_name
    assert soup(with_name).select_one(".code-language").get_text() == "Python"
    assert soup(without_name).select_one(".code-filename") is None


def test_code_with_a_stored_bad_line_spec_still_renders():
    html = CodeBlock().render(code_value(highlight_lines="a-b"))

    assert soup(html).select_one(".kr").get_text() == "__global__"
    assert not soup(html).select(".hll")


def test_code_block_keeps_the_first_lines_indentation_through_validation():
    block = CodeBlock()
    code = "    x = 1\n    y = 2"

    value = block.clean(code_value(language="python", code=code))

    assert value["code"] == code


# Math


def test_math_block_renders_display_math_and_label():
    tex = r"\sum_{i=1}^{n} i = \frac{n(n+1)}{2}"
    block = MathBlock()

    labelled = block.render(block.to_python({"tex": tex, "label": "1"}))
    plain = block.render(block.to_python({"tex": tex, "label": ""}))

    assertHTMLEqual(
        labelled,
        f'<div class="block-math has-label">{render_math(tex, display=True)}'
        '<span class="math-label">(1)</span></div>',
    )
    assertHTMLEqual(
        plain, f'<div class="block-math">{render_math(tex, display=True)}</div>'
    )


def test_math_block_with_stored_bad_latex_shows_the_source_instead_of_failing():
    tex = r"\frac{a"
    block = MathBlock()
    # to_python skips clean(): this is what a row saved before validation holds.
    html = block.render(block.to_python({"tex": tex, "label": ""}))

    assertHTMLEqual(
        html, f'<div class="block-math">{render_math_safe(tex, display=True)}</div>'
    )
    fallback = soup(html).select_one(".math-error")
    assert fallback.code.get_text() == tex
    assert "KaTeX parse error" in fallback["title"]


# Table


def test_table_renders_caption_header_row_and_math_in_cells():
    block = TableBlock()
    value = block.to_python(
        {
            "table_caption": "数值格式",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": [["格式", "最大值"], ["FP8 <E4M3>", "$448$"], ["INT8", None]],
        }
    )

    assertHTMLEqual(
        block.render(value),
        '<figure class="block-table"><div class="table-scroll"><table>'
        "<caption>数值格式</caption>"
        '<thead><tr><th scope="col">格式</th><th scope="col">最大值</th></tr></thead>'
        "<tbody>"
        f"<tr><td>FP8 &lt;E4M3&gt;</td><td>{render_math('448')}</td></tr>"
        "<tr><td>INT8</td><td></td></tr>"
        "</tbody></table></div></figure>",
    )


def test_table_first_column_header_without_header_row():
    block = TableBlock()
    value = block.to_python(
        {
            "first_row_is_table_header": False,
            "first_col_is_header": True,
            "data": [["FP8", "8"], ["INT8", "8"]],
        }
    )

    assertHTMLEqual(
        block.render(value),
        '<figure class="block-table"><div class="table-scroll"><table><tbody>'
        '<tr><th scope="row">FP8</th><td>8</td></tr>'
        '<tr><th scope="row">INT8</th><td>8</td></tr>'
        "</tbody></table></div></figure>",
    )


# Callout


@pytest.mark.parametrize(("kind", "label"), CALLOUT_KINDS)
def test_callout_kind_sets_class_and_default_title(kind, label):
    block = CalloutBlock()
    value = block.to_python({"kind": kind, "title": "", "body": "<p>先测带宽。</p>"})

    aside = soup(block.render(value)).aside

    assert aside["class"] == ["callout", f"callout-{kind}"]
    assert aside.select_one(".callout-title").get_text() == label.split()[0]
    assert "先测带宽。" in aside.get_text()


def test_callout_renders_title_and_body_with_math():
    block = CalloutBlock()
    body = "<p>共享内存有 $32$ 个 bank。</p>"
    value = block.to_python({"kind": "warning", "title": "注意 $n$", "body": body})

    assertHTMLEqual(
        block.render(value),
        '<aside class="callout callout-warning">'
        f'<p class="callout-title">注意 {render_math("n")}</p>'
        f'<div class="block-paragraph"><p>共享内存有 {render_math("32")} 个 bank。</p>'
        "</div></aside>",
    )


# Quote


def test_quote_shows_text_and_source():
    block = QuoteBlock()
    value = block.to_python(
        {"quote": "<p>先测量，再优化。</p>", "source": "Knuth & co"}
    )

    figure = soup(block.render(value)).select_one("figure.block-quote")

    assert figure.blockquote.get_text(strip=True) == "先测量，再优化。"
    assert figure.figcaption.get_text() == "— Knuth & co"


def test_quote_renders_inline_math():
    block = QuoteBlock()
    value = block.to_python({"quote": "<p>$E = mc^2$</p>", "source": ""})

    assertHTMLEqual(
        block.render(value),
        '<figure class="block-quote"><blockquote><div class="block-paragraph">'
        f"<p>{render_math('E = mc^2')}</p></div></blockquote></figure>",
    )


# Embed


@pytest.mark.django_db
def test_embed_block_renders_the_stored_oembed_html():
    add_embed(VIDEO_URL, VIDEO_HTML)
    block = EmbedBlock()

    html = block.render(block.to_python(VIDEO_URL))

    # Wagtail wraps the provider's iframe to keep its aspect ratio on phones.
    assertHTMLEqual(
        html,
        '<figure class="block-embed"><div class="responsive-object" '
        f'style="padding-bottom: 56.25%;">{VIDEO_HTML}</div></figure>',
    )


# Interactive HTML figure


def test_html_figure_runs_in_a_sandboxed_iframe():
    figure_html = '<script>document.body.textContent = "a & b";</script><svg></svg>'
    block = HtmlFigureBlock()
    value = block.to_python(
        {"html": figure_html, "height": 300, "caption": "共享内存示意"}
    )

    html = block.render(value)

    assertHTMLEqual(
        html,
        '<figure class="block-html-figure">'
        f'<iframe sandbox="allow-scripts" srcdoc="{escape(figure_html)}" height="300" '
        'loading="lazy" title="共享内存示意"></iframe>'
        f"<figcaption>{render_inline_text('共享内存示意')}</figcaption></figure>",
    )
    # The browser reads the figure's exact source from the attribute ...
    assert soup(html).iframe["srcdoc"] == figure_html
    # ... and none of it reaches this page's DOM or origin.
    assert "<script>" not in html
    assert "allow-same-origin" not in html


def test_html_figure_of_a_live_page_loads_its_own_document():
    # Its own URL, under its own policy: none of it is in this page.
    block = HtmlFigureBlock()
    value = block.to_python(
        {"html": "<script>draw()</script>", "height": 300, "caption": ""}
    )

    html = block.render(value, {"figures_at": "/post/figures/", "block_id": "b1"})

    assertHTMLEqual(
        html,
        '<figure class="block-html-figure">'
        '<iframe sandbox="allow-scripts" src="/post/figures/b1/" height="300" '
        'loading="lazy" title="交互式图"></iframe></figure>',
    )


def test_html_figure_without_caption_has_a_default_title():
    block = HtmlFigureBlock()
    value = block.to_python({"html": "<p>hi</p>", "height": 120, "caption": ""})

    assertHTMLEqual(
        block.render(value),
        '<figure class="block-html-figure">'
        '<iframe sandbox="allow-scripts" srcdoc="&lt;p&gt;hi&lt;/p&gt;" height="120" '
        'loading="lazy" title="交互式图"></iframe></figure>',
    )


# Diagram


def test_diagram_block_renders_its_escaped_source_for_the_script_to_draw():
    block = DiagramBlock()
    value = block.to_python({"source": "flowchart LR\n    A[a < b] --> B"})
    assertHTMLEqual(
        block.render(value),
        '<figure class="block-diagram" data-diagram="mermaid">'
        '<pre class="diagram-source"><code class="language-mermaid">'
        "flowchart LR\n    A[a &lt; b] --&gt; B</code></pre></figure>",
    )


def test_a_mermaid_fence_in_markdown_renders_as_a_diagram_block_does():
    source = "sequenceDiagram\n    H->>D: cudaMemcpy"
    diagram = DiagramBlock()
    markdown = MarkdownBlock()
    assertHTMLEqual(
        markdown.render(f"Before.\n\n```mermaid\n{source}\n```\n"),
        '<div class="block-markdown"><p>Before.</p>'
        + diagram.render(diagram.to_python({"source": source}))
        + "</div>",
    )
