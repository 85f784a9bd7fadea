"""Every body block previews in the admin and rejects what would break a page."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from blog.blocks import (
    CalloutBlock,
    CodeBlock,
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
from blog.models import PostPage
from tests.blog.blocks import (
    VECTOR_ADD,
    VIDEO_HTML,
    VIDEO_URL,
    add_embed,
    code_value,
    error_text,
    no_oembed_requests,  # noqa: F401 (an autouse fixture)
    soup,
)

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
    # The source, which Mermaid draws in the chooser (blocks/diagram_block.html).
    "diagram": lambda page: (
        "全局内存" in page.select_one("figure.block-diagram pre code").get_text()
    ),
    "note": lambda page: (
        page.select_one("aside.note-embed .note-embed-source").get_text()
        == "引自《共享内存与 Bank Conflict》"
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

    assert "公式错误：" in error_text(caught.value)


def test_math_block_error_is_on_the_tex_field():
    block = MathBlock()

    with pytest.raises(ValidationError) as caught:
        block.clean(block.to_python({"tex": BAD_TEX, "label": ""}))

    assert "公式错误：" in " ".join(caught.value.block_errors["tex"].messages)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("9", "代码只有 4 行，不能高亮第 9 行。"),
        ("a-b", "“a-b”不是行号或行号范围；请写成 1,3-5,9 这样"),
        ("3-1", "范围“3-1”写反了；请写成 1-3"),
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

    html = block.render(cleaned)
    assert html.strip()
    assert "math-error" not in html


@pytest.mark.django_db
def test_embed_with_a_known_url_passes_validation():
    add_embed(VIDEO_URL, VIDEO_HTML)
    block = EmbedBlock()

    assert block.clean(block.to_python(VIDEO_URL)).url == VIDEO_URL
