"""Every body block renders the markup a reader sees, and rejects what would break it.

Expected HTML is built from the pure renderers in `rendering`, so each test
checks the block's own markup around them exactly (as Wagtail's own
`test_blocks.py` does with `assertHTMLEqual`).
"""

import json
from html import escape

import pytest
import wagtail_factories
from bs4 import BeautifulSoup
from django.core.exceptions import ValidationError
from django.urls import reverse
from pytest_django.asserts import assertHTMLEqual
from wagtail.blocks.base import get_error_json_data
from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed

from blog.blocks import (
    CALLOUT_KINDS,
    CalloutBlock,
    CodeBlock,
    EmbedBlock,
    HeadingBlock,
    HtmlFigureBlock,
    ImageBlock,
    MarkdownBlock,
    MathBlock,
    ParagraphBlock,
    PostBodyBlock,
    QuoteBlock,
    TableBlock,
)
from blog.models import PostPage
from rendering import (
    highlight,
    render_inline_text,
    render_markdown,
    render_math,
    render_math_safe,
)

VIDEO_URL = "https://www.youtube.com/watch?v=x"
VIDEO_HTML = '<iframe src="https://www.youtube-nocookie.com/embed/x"></iframe>'

VECTOR_ADD = (
    "__global__ void add(const float* a, float* c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] += a[i];\n"
    "}"
)


def soup(html):
    return BeautifulSoup(html, "html.parser")


def error_text(error: ValidationError) -> str:
    """Return every message of a block error (nested ones included) as one string."""
    return json.dumps(get_error_json_data(error), ensure_ascii=False)


def heading_html(level: str, anchor: str, text_html: str) -> str:
    return (
        f'<{level} id="{anchor}" class="heading">{text_html}'
        f'<a class="heading-anchor" href="#{anchor}" aria-label="链接到本节">#</a>'
        f"</{level}>"
    )


def code_value(**overrides):
    raw = {
        "language": "cuda",
        "filename": "add.cu",
        "code": VECTOR_ADD,
        "highlight_lines": "",
        "line_numbers": True,
    }
    return CodeBlock().to_python({**raw, **overrides})


def add_embed(url: str, html: str) -> Embed:
    """Store an oEmbed result, so rendering reads it instead of the network."""
    return Embed.objects.create(
        url=url,
        hash=get_embed_hash(url),
        type="video",
        html=html,
        title="Video",
        provider_name="YouTube",
        width=560,
        height=315,
    )


@pytest.fixture(autouse=True)
def no_oembed_requests(monkeypatch):
    """Fail loudly instead of asking an oEmbed provider over the network."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"tests must not fetch oEmbed for {url}")

    monkeypatch.setattr("wagtail.embeds.embeds.get_finder_for_embed", refuse)


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


# Image


@pytest.mark.django_db
def test_image_block_renders_responsive_picture_with_title_as_alt():
    image = wagtail_factories.ImageFactory(
        title="Roofline 模型", file__width=1600, file__height=900
    )
    block = ImageBlock()
    value = block.to_python(
        {"image": image.pk, "alt": "", "caption": "图 1：$I$ 与性能"}
    )

    html = block.render(value)

    figure = soup(html).select_one("figure.block-image")
    picture = figure.picture
    types = [source["type"] for source in picture.find_all("source")]
    assert types == ["image/avif", "image/webp"]
    for source in picture.find_all("source"):
        assert [w.split()[-1] for w in source["srcset"].split(",")] == [
            "480w",
            "800w",
            "1200w",
            "1600w",
        ]
    img = picture.img
    assert img["alt"] == "Roofline 模型"
    assert img["loading"] == "lazy"
    assert ".png" in img["src"]
    assert "480w" in img["srcset"] and "1600w" in img["srcset"]
    # The fallback is the smallest rendition; its size reserves a 16:9 box.
    assert (img["width"], img["height"]) == ("480", "270")
    assertHTMLEqual(
        str(figure.figcaption),
        f"<figcaption>{render_inline_text('图 1：$I$ 与性能')}</figcaption>",
    )


@pytest.mark.django_db
def test_image_block_prefers_the_authors_alt_text():
    image = wagtail_factories.ImageFactory(title="IMG_0042")
    block = ImageBlock()
    value = block.to_python({"image": image.pk, "alt": "共享内存布局", "caption": ""})

    html = block.render(value)

    assert soup(html).img["alt"] == "共享内存布局"
    assert soup(html).figcaption is None


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


def test_html_figure_without_caption_has_a_default_title():
    block = HtmlFigureBlock()
    value = block.to_python({"html": "<p>hi</p>", "height": 120, "caption": ""})

    assertHTMLEqual(
        block.render(value),
        '<figure class="block-html-figure">'
        '<iframe sandbox="allow-scripts" srcdoc="&lt;p&gt;hi&lt;/p&gt;" height="120" '
        'loading="lazy" title="交互式图"></iframe></figure>',
    )


# Previews in the admin's block chooser

# What an editor must see in each block's preview.
PREVIEW_SHOWS = {
    "heading": lambda page: page.find("h2", id="共享内存与-bank-conflict"),
    "paragraph": lambda page: page.select_one(".block-paragraph .katex"),
    "markdown": lambda page: (
        page.select_one(".block-markdown .katex-display")
        and page.select_one(".block-markdown aside.callout-tip")
    ),
    "code": lambda page: (
        page.select_one(".code-filename").get_text() == "vector_add.cu"
        and page.select_one(".hll")
        and page.select_one(".kr").get_text() == "__global__"
    ),
    "math": lambda page: (
        page.select_one(".block-math .katex-display")
        and page.select_one(".math-label").get_text() == "(1)"
    ),
    "image": lambda page: (
        page.select_one(".block-image figcaption").get_text() == "图 1：示意图"
    ),
    "table": lambda page: (
        page.caption.get_text() == "常见数值格式" and page.select_one("td .katex")
    ),
    "callout": lambda page: (
        page.select_one("aside.callout-warning .callout-title").get_text() == "同步"
    ),
    "quote": lambda page: (
        page.select_one(".block-quote figcaption").get_text() == "— Donald Knuth"
    ),
    "embed": lambda page: (
        page.select_one(".block-embed iframe")["src"]
        == "https://www.youtube-nocookie.com/embed/bDcPmZQwV3g"
    ),
    "html_figure": lambda page: (
        "SMEM" in page.select_one(".block-html-figure iframe")["srcdoc"]
    ),
}


def test_every_body_block_has_a_preview_check():
    assert set(PREVIEW_SHOWS) == set(PostBodyBlock.base_blocks)


@pytest.mark.django_db
@pytest.mark.parametrize("name", PREVIEW_SHOWS)
def test_block_preview_renders_its_preview_value(admin_client, name):
    block = PostPage._meta.get_field("body").stream_block.child_blocks[name]
    if name == "embed":
        add_embed(
            block.meta.preview_value,
            '<iframe src="https://www.youtube-nocookie.com/embed/bDcPmZQwV3g"></iframe>',
        )

    response = admin_client.get(
        reverse("wagtailadmin_block_preview"), {"id": block.definition_prefix}
    )

    assert response.status_code == 200
    assert PREVIEW_SHOWS[name](soup(response.content.decode())), name


def test_blocks_offer_their_preview_in_the_chooser():
    body = PostPage._meta.get_field("body").stream_block
    hidden = [
        name for name, block in body.child_blocks.items() if not block.is_previewable
    ]

    assert hidden == []


# Validation

BAD_TEX = r"\frac{a"


@pytest.mark.parametrize(
    ("block", "raw"),
    [
        (HeadingBlock(), {"text": f"分块 ${BAD_TEX}$", "level": "h2"}),
        (ParagraphBlock(), f"<p>设 ${BAD_TEX}$。</p>"),
        (MarkdownBlock(), f"正文\n\n$$\n{BAD_TEX}\n$$\n"),
        (MathBlock(), {"tex": BAD_TEX, "label": ""}),
        (
            TableBlock(),
            {"first_row_is_table_header": False, "data": [["x", f"${BAD_TEX}$"]]},
        ),
    ],
    ids=["heading", "paragraph", "markdown", "math", "table"],
)
def test_bad_latex_is_rejected_with_katex_message(block, raw):
    with pytest.raises(ValidationError) as caught:
        block.clean(block.to_python(raw))

    assert "KaTeX parse error" in error_text(caught.value)


def test_math_block_error_is_on_the_tex_field():
    block = MathBlock()

    with pytest.raises(ValidationError) as caught:
        block.clean(block.to_python({"tex": BAD_TEX, "label": ""}))

    assert "KaTeX parse error" in " ".join(caught.value.block_errors["tex"].messages)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("9", "代码只有 4 行，不能高亮第 9 行。"),
        ("a-b", "“a-b” is not a line number or range; write e.g. 1,3-5,9"),
        ("3-1", "Range “3-1” runs backwards; write 1-3"),
    ],
)
def test_code_highlight_lines_must_exist_and_parse(spec, message):
    block = CodeBlock()

    with pytest.raises(ValidationError) as caught:
        block.clean(code_value(highlight_lines=spec))

    assert caught.value.block_errors["highlight_lines"].messages == [message]


@pytest.mark.parametrize(
    ("block", "raw"),
    [
        (HeadingBlock(), {"text": "$O(n)$ 的成本是 $5 或 $10", "level": "h2"}),
        (ParagraphBlock(), r"<p>$\frac{a}{b}$ 与 \$3</p>"),
        (MarkdownBlock(), "$$\n\\frac{a}{b}\n$$\n"),
        (
            CodeBlock(),
            {"language": "cuda", "code": VECTOR_ADD, "highlight_lines": "1,3-4"},
        ),
        (MathBlock(), {"tex": r"\frac{a}{b}", "label": "2"}),
        (
            TableBlock(),
            {"first_row_is_table_header": True, "data": [["x"], ["$2^7-1$"]]},
        ),
        (CalloutBlock(), {"kind": "tip", "title": "", "body": "<p>$x$</p>"}),
        (QuoteBlock(), {"quote": "<p>引用</p>", "source": ""}),
        (HtmlFigureBlock(), {"html": "<svg></svg>", "height": 200, "caption": ""}),
    ],
    ids=[
        "heading",
        "paragraph",
        "markdown",
        "code",
        "math",
        "table",
        "callout",
        "quote",
        "html_figure",
    ],
)
def test_valid_values_pass_validation_and_render_cleanly(block, raw):
    cleaned = block.clean(block.to_python(raw))

    assert "math-error" not in block.render(cleaned)


@pytest.mark.django_db
def test_embed_with_a_known_url_passes_validation():
    add_embed(VIDEO_URL, VIDEO_HTML)
    block = EmbedBlock()

    assert block.clean(block.to_python(VIDEO_URL)).url == VIDEO_URL
