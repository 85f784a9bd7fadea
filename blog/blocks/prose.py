"""Blocks of text: headings, paragraphs, Markdown, tables, callouts, quotes."""

from django import forms
from django.template.loader import render_to_string
from django.utils.functional import cached_property
from django.utils.safestring import mark_safe
from wagtail import blocks
from wagtail.contrib.table_block.blocks import TableBlock as WagtailTableBlock
from wagtail.contrib.table_block.blocks import TableInput as WagtailTableInput
from wagtail.images import get_image_model

from rendering import (
    HEADING_MAX_LENGTH,
    inline_math_errors,
    library_image_ids,
    markdown_math_errors,
    render_inline_html,
    render_markdown,
    slugify_anchor,
)

from .base import (
    CALLOUT_KINDS,
    GROUP_TEXT,
    MATH_HELP,
    RICH_TEXT_FEATURES,
    CodeTextBlock,
    InlineMathFieldsMixin,
    Text,
    inline_html,
    is_feed,
    math_output,
    public_paths,
    raise_math_errors,
    shown_images,
)


class HeadingBlock(blocks.StructBlock):
    """A section heading (h2–h4) with a stable anchor for links and the TOC."""

    # Long enough for any heading authors write; its anchor is shortened instead.
    text = blocks.CharBlock(
        label="标题文字", max_length=HEADING_MAX_LENGTH, help_text=MATH_HELP
    )
    level = blocks.ChoiceBlock(
        label="级别", choices=[("h2", "H2"), ("h3", "H3"), ("h4", "H4")], default="h2"
    )

    class Meta:
        icon = "title"
        template = "blocks/heading_block.html"
        group = GROUP_TEXT
        description = "章节标题，带稳定的锚点"
        preview_value = {"text": "共享内存与 Bank Conflict", "level": "h2"}
        form_classname = "heading-block"
        text = {"text": Text.PROSE, "level": Text.NONE}

    def clean(self, value):
        value = super().clean(value)
        raise_math_errors(lambda: inline_math_errors(value["text"]))
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["anchor"] = (parent_context or {}).get("heading_anchor") or (
            slugify_anchor(value["text"])
        )
        context["html"] = inline_html(value["text"], parent_context)
        return context


class ParagraphBlock(blocks.RichTextBlock):
    """Rich text; inline math written $…$ or \\(…\\) is typeset on the server."""

    def __init__(self, **kwargs):
        kwargs.setdefault("features", RICH_TEXT_FEATURES)
        kwargs.setdefault("help_text", MATH_HELP)
        super().__init__(**kwargs)

    class Meta:
        icon = "pilcrow"
        template = "blocks/paragraph_block.html"
        group = GROUP_TEXT
        description = "正文段落，支持行内公式"
        preview_value = (
            "<p>设 warp 大小为 $w=32$，每个线程处理 $k$ 个元素，"
            "则一次迭代处理 $32k$ 个元素。</p>"
        )
        text = Text.RICH_TEXT

    def clean(self, value):
        value = super().clean(value)
        raise_math_errors(lambda: inline_math_errors(value.source, html=True))
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        # The rich-text HTML is Wagtail's own sanitised output; math is rendered
        # inside its text nodes only.
        context["html"] = mark_safe(  # noqa: S308
            render_inline_html(str(value), math_output(parent_context))
        )
        return context


class MarkdownBlock(CodeTextBlock):
    """Pasted Markdown: math, fenced code, tables, footnotes and callouts."""

    def __init__(self, **kwargs):
        kwargs.setdefault("rows", 12)
        kwargs.setdefault(
            "help_text",
            "Markdown：$…$ / $$…$$ 公式、``` 代码块、表格、脚注、> [!NOTE] 提示框；"
            "![说明](image:42) 显示媒体库中 ID 为 42 的图片。原始 HTML 会被转义。",
        )
        super().__init__(**kwargs)

    class Meta:
        icon = "doc-full"
        template = "blocks/markdown_block.html"
        group = GROUP_TEXT
        description = "粘贴 Markdown（公式、代码、表格、脚注、提示框）"
        form_classname = "markdown-block"
        preview_value = (
            "带宽受限时，算术强度 $I = \\frac{\\text{FLOPs}}{\\text{Bytes}}$ 决定上限：\n\n"
            "$$P = \\min(\\pi, \\beta I)$$\n\n"
            "> [!TIP]\n> 先测带宽，再谈优化。[^1]\n\n"
            "[^1]: Roofline 模型，Williams et al., 2009。\n"
        )
        text = Text.MARKDOWN

    def clean(self, value):
        value = super().clean(value)
        raise_math_errors(lambda: markdown_math_errors(value))
        return value

    def extract_references(self, value):
        # The library images it shows, so the media library lists their use.
        for pk in library_image_ids(value or ""):
            yield get_image_model(), str(pk), "", ""

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        # markdown-it runs with html=False: raw HTML in the source is escaped.
        # Footnote ids carry the block's id, so two Markdown blocks on one page
        # never both define "fn1".
        parent_context = parent_context or {}
        block_id = parent_context.get("block_id") or ""
        context["html"] = mark_safe(  # noqa: S308
            render_markdown(
                value,
                doc_id=block_id[:8],
                anchors=parent_context.get("heading_anchors"),
                feed=is_feed(parent_context),
                images=shown_images(library_image_ids(value), parent_context),
            )
        )
        return context


class TableInput(WagtailTableInput):
    """Wagtail's table editor, with Chinese strings for its context menu."""

    @cached_property
    def media(self):
        # After Handsontable, before any table is drawn: its language is the
        # site's, which it must know or it logs an error on the edit page.
        return super().media + forms.Media(js=["js/admin/handsontable-zh-hans.js"])


class TableBlock(WagtailTableBlock):
    """A table with a caption and a header row; cells may hold inline math."""

    @cached_property
    def field(self):
        return forms.CharField(
            widget=TableInput(table_options=self.table_options), **self.field_options
        )

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "table_options", {"renderer": "text", "startRows": 3, "startCols": 3}
        )
        super().__init__(**kwargs)

    class Meta:
        icon = "table"
        template = "blocks/table_block.html"
        group = GROUP_TEXT
        description = "表格（单元格可写行内公式）"
        preview_value = {
            "table_caption": "常见数值格式",
            "table_header_choice": "row",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": [
                ["格式", "位宽", "最大值"],
                ["FP8 E4M3", "8", "$448$"],
                ["INT8", "8", "$2^7-1$"],
            ],
        }
        text = {
            "table_caption": Text.PROSE,
            "data": Text.PROSE,
            "table_header_choice": Text.NONE,
            "first_row_is_table_header": Text.NONE,
            "first_col_is_header": Text.NONE,
            "cell": Text.NONE,
            "mergedCells": Text.NONE,
        }

    def clean(self, value):
        value = super().clean(value)
        raise_math_errors(
            lambda: [
                message
                for row in (value or {}).get("data") or []
                for cell in row
                for message in inline_math_errors(cell or "")
            ]
        )
        return value

    def render(self, value, context=None):
        # Wagtail's TableBlock builds its own context and skips get_context();
        # render our template with cells already typeset.
        if not value:
            return ""
        rows = [
            [inline_html(cell or "", context) for cell in row]
            for row in value.get("data") or []
        ]
        header = rows[0] if rows and value.get("first_row_is_table_header") else None
        return render_to_string(
            self.meta.template,
            {
                "value": value,
                "header": header,
                "rows": rows[1:] if header else rows,
                "first_col_is_header": bool(value.get("first_col_is_header")),
                "caption_html": inline_html(value.get("table_caption"), context),
            },
        )


class CalloutBlock(InlineMathFieldsMixin, blocks.StructBlock):
    """A highlighted note, tip, info, warning or danger box."""

    kind = blocks.ChoiceBlock(label="类型", choices=CALLOUT_KINDS, default="note")
    title = blocks.CharBlock(label="标题", required=False, max_length=255)
    body = ParagraphBlock(label="内容")

    class Meta:
        icon = "warning"
        template = "blocks/callout_block.html"
        group = GROUP_TEXT
        description = "提示框（注意、提示、信息、警告、危险）"
        preview_value = {
            "kind": "warning",
            "title": "同步",
            "body": "<p>在读取共享内存之前调用 <code>__syncthreads()</code>。</p>",
        }
        text = {"kind": Text.NONE, "title": Text.PROSE, "body": Text.RICH_TEXT}

    inline_math_fields = ("title",)

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["kind_label"] = dict(CALLOUT_KINDS)[value["kind"]].split()[0]
        return context


class QuoteBlock(blocks.StructBlock):
    """A block quotation with an optional source."""

    quote = ParagraphBlock(label="引文")
    source = blocks.CharBlock(label="出处", required=False, max_length=255)

    class Meta:
        icon = "openquote"
        template = "blocks/quote_block.html"
        group = GROUP_TEXT
        description = "引用"
        preview_value = {
            "quote": "<p>Premature optimization is the root of all evil.</p>",
            "source": "Donald Knuth",
        }
        # The source first: search text has always read it before the quote.
        text = {"source": Text.PROSE, "quote": Text.RICH_TEXT}


DECONSTRUCT_ALIASES = public_paths(
    HeadingBlock, ParagraphBlock, MarkdownBlock, TableBlock, CalloutBlock, QuoteBlock
)
