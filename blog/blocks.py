"""StreamField blocks for post bodies.

Every block hands its template finished HTML from `rendering`, whose
renderers escape their input; templates only place it.
"""

from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from wagtail import blocks
from wagtail.contrib.table_block.blocks import TableBlock as WagtailTableBlock
from wagtail.embeds.blocks import EmbedBlock as WagtailEmbedBlock
from wagtail.images.blocks import ImageChooserBlock

from rendering import (
    LANGUAGES,
    check_math,
    highlight,
    inline_math_errors,
    markdown_headings,
    markdown_math_errors,
    parse_line_spec,
    render_inline_html,
    render_inline_text,
    render_markdown,
    render_math_safe,
    slugify_anchor,
    unique_anchors,
)

RICH_TEXT_FEATURES = [
    "bold",
    "italic",
    "code",
    "link",
    "document-link",
    "ol",
    "ul",
    "superscript",
    "subscript",
    "strikethrough",
]

CALLOUT_KINDS = [
    ("note", "注意 Note"),
    ("tip", "提示 Tip"),
    ("info", "信息 Info"),
    ("warning", "警告 Warning"),
    ("danger", "危险 Danger"),
]

# Groups of the block chooser. A table sits with text: its cells are prose with
# inline math, like a paragraph's, not code or display math.
GROUP_TEXT = "文本"
GROUP_CODE = "代码与公式"
GROUP_MEDIA = "媒体"

MATH_HELP = "行内公式写作 $…$ 或 \\(…\\)；字面的美元符号写作 \\$。"


def is_feed(context) -> bool:
    """Return True when rendering for a feed (``{"feed": True}`` in the context).

    Feed readers drop our CSS: math goes out as MathML only, code inline-styled.
    """
    return bool((context or {}).get("feed"))


def math_output(context) -> str:
    """Return KaTeX's output option for this render."""
    return "mathml" if is_feed(context) else "htmlAndMathml"


def inline_html(text: str | None, context=None):
    """Return plain text as HTML with its inline math typeset.

    Safe to mark: the renderer escapes everything that is not KaTeX output.
    """
    return mark_safe(render_inline_text(text or "", math_output(context)))  # noqa: S308


def _raise_math_errors(messages: list[str]) -> None:
    if messages:
        raise ValidationError("；".join(messages))


class InlineMathFieldsMixin:
    """A StructBlock whose plain-text `inline_math_fields` may hold inline math.

    On save each field's KaTeX errors show under the field; the template gets
    the typeset field as `<name>_html`.
    """

    inline_math_fields: tuple[str, ...] = ()

    def clean(self, value):
        value = super().clean(value)
        errors = {
            name: ValidationError("；".join(messages))
            for name in self.inline_math_fields
            if (messages := inline_math_errors(value.get(name) or ""))
        }
        if errors:
            raise blocks.StructBlockValidationError(errors)
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        for name in self.inline_math_fields:
            context[f"{name}_html"] = inline_html(value.get(name), parent_context)
        return context


class CodeTextBlock(blocks.TextBlock):
    """A text area that keeps leading and trailing spaces: indentation is code."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.field_options["strip"] = False


class HeadingBlock(blocks.StructBlock):
    """A section heading (h2–h4) with a stable anchor for links and the TOC."""

    text = blocks.CharBlock(label="标题文字", max_length=255, help_text=MATH_HELP)
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

    def clean(self, value):
        value = super().clean(value)
        _raise_math_errors(inline_math_errors(value["text"]))
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

    def clean(self, value):
        value = super().clean(value)
        _raise_math_errors(inline_math_errors(value.source, html=True))
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
            "Markdown：$…$ / $$…$$ 公式、``` 代码块、表格、脚注、> [!NOTE] 提示框。"
            "原始 HTML 会被转义。",
        )
        super().__init__(**kwargs)

    class Meta:
        icon = "doc-full"
        template = "blocks/markdown_block.html"
        group = GROUP_TEXT
        description = "粘贴 Markdown（公式、代码、表格、脚注、提示框）"
        preview_value = (
            "带宽受限时，算术强度 $I = \\frac{\\text{FLOPs}}{\\text{Bytes}}$ 决定上限：\n\n"
            "$$P = \\min(\\pi, \\beta I)$$\n\n"
            "> [!TIP]\n> 先测带宽，再谈优化。[^1]\n\n"
            "[^1]: Roofline 模型，Williams et al., 2009。\n"
        )

    def clean(self, value):
        value = super().clean(value)
        _raise_math_errors(markdown_math_errors(value))
        return value

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
            )
        )
        return context


class CodeBlock(blocks.StructBlock):
    """Source code highlighted by Pygments on the server."""

    language = blocks.ChoiceBlock(label="语言", choices=LANGUAGES, default="cuda")
    filename = blocks.CharBlock(
        label="文件名",
        required=False,
        max_length=255,
        help_text="文件名或说明，显示在代码上方",
    )
    code = CodeTextBlock(label="代码", rows=10)
    highlight_lines = blocks.CharBlock(
        label="高亮行", required=False, max_length=255, help_text="高亮的行，例如 1,3-5"
    )
    line_numbers = blocks.BooleanBlock(label="显示行号", required=False, default=True)

    class Meta:
        icon = "code"
        template = "blocks/code_block.html"
        group = GROUP_CODE
        description = "代码（CUDA、C++、Python、PTX…），服务器端高亮"
        preview_value = {
            "language": "cuda",
            "filename": "vector_add.cu",
            "code": (
                "__global__ void add(const float* a, const float* b, float* c, int n) {\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) c[i] = a[i] + b[i];\n"
                "}"
            ),
            "highlight_lines": "2",
            "line_numbers": True,
        }

    def clean(self, value):
        value = super().clean(value)
        spec = value.get("highlight_lines") or ""
        if spec.strip():
            try:
                lines = parse_line_spec(spec)
            except ValueError as error:
                raise blocks.StructBlockValidationError(
                    {"highlight_lines": ValidationError(str(error))}
                ) from error
            count = value["code"].count("\n") + 1
            beyond = [n for n in lines if n > count]
            if beyond:
                raise blocks.StructBlockValidationError(
                    {
                        "highlight_lines": ValidationError(
                            f"代码只有 {count} 行，不能高亮第 {beyond[0]} 行。"
                        )
                    }
                )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        spec = value.get("highlight_lines") or ""
        try:
            lines = parse_line_spec(spec) if spec.strip() else []
        except ValueError:
            lines = []  # Stored before validation existed: show the code anyway.
        context["language_label"] = dict(LANGUAGES).get(
            value["language"], value["language"]
        )
        # Pygments escapes the source.
        context["html"] = mark_safe(  # noqa: S308
            highlight(
                value["code"],
                value["language"],
                highlight_lines=lines,
                line_numbers=bool(value.get("line_numbers")),
                inline_styles=is_feed(parent_context),
            )
        )
        return context


class MathBlock(blocks.StructBlock):
    """Display math in LaTeX, typeset by KaTeX on the server."""

    tex = blocks.TextBlock(
        label="公式",
        rows=4,
        help_text="LaTeX，不需要 $$；多行公式用 \\begin{aligned}…\\end{aligned}",
    )
    label = blocks.CharBlock(
        label="编号",
        required=False,
        max_length=32,
        help_text="编号，例如 1（显示为 (1)）",
    )

    class Meta:
        icon = "decimal"
        template = "blocks/math_block.html"
        group = GROUP_CODE
        description = "独立公式（LaTeX）"
        preview_value = {
            "tex": "\\operatorname{softmax}(x)_i = \\frac{e^{x_i - m}}{\\sum_j e^{x_j - m}}",
            "label": "1",
        }

    def clean(self, value):
        value = super().clean(value)
        message = check_math(value["tex"], display=True)
        if message:
            raise blocks.StructBlockValidationError({"tex": ValidationError(message)})
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["html"] = mark_safe(  # noqa: S308  KaTeX escapes
            render_math_safe(value["tex"], True, math_output(parent_context))
        )
        # Editors write "1" or "(1)"; the template adds the brackets.
        context["label"] = (value.get("label") or "").strip().strip("()（）")
        return context


class ImageBlock(InlineMathFieldsMixin, blocks.StructBlock):
    """An image with alt text and caption, served as responsive renditions."""

    image = ImageChooserBlock(label="图片")
    alt = blocks.CharBlock(
        label="替代文本",
        required=False,
        max_length=255,
        help_text="替代文本；留空则使用图片标题",
    )
    caption = blocks.CharBlock(
        label="图注", required=False, max_length=500, help_text=MATH_HELP
    )

    class Meta:
        icon = "image"
        template = "blocks/image_block.html"
        group = GROUP_MEDIA
        description = "图片（自动生成响应式尺寸与 WebP/AVIF）"
        preview_value = {"alt": "", "caption": "图 1：示意图"}

    inline_math_fields = ("caption",)

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        image = value.get("image")
        context["alt"] = value.get("alt") or (image.title if image else "")
        return context


class TableBlock(WagtailTableBlock):
    """A table with a caption and a header row; cells may hold inline math."""

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

    def clean(self, value):
        value = super().clean(value)
        messages = []
        for row in (value or {}).get("data") or []:
            for cell in row:
                messages.extend(inline_math_errors(cell or ""))
        _raise_math_errors(messages)
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
        description = "提示框（note / tip / info / warning / danger）"
        preview_value = {
            "kind": "warning",
            "title": "同步",
            "body": "<p>在读取共享内存之前调用 <code>__syncthreads()</code>。</p>",
        }

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


class EmbedBlock(WagtailEmbedBlock):
    """A video or other oEmbed content, by URL."""

    class Meta:
        icon = "media"
        template = "blocks/embed_block.html"
        group = GROUP_MEDIA
        description = "嵌入视频等外部内容（oEmbed 链接）"
        preview_value = "https://www.youtube.com/watch?v=bDcPmZQwV3g"

    def render(self, value, context=None):
        # Feed readers strip the provider's iframe: link to the content instead
        # (and skip fetching the oEmbed HTML).
        if is_feed(context) and value:
            return format_html('<p><a href="{}">{}</a></p>', value.url, value.url)
        return super().render(value, context)


class HtmlFigureBlock(InlineMathFieldsMixin, blocks.StructBlock):
    """An interactive HTML/SVG figure, isolated in a sandboxed iframe."""

    html = blocks.TextBlock(
        label="HTML",
        rows=12,
        help_text="完整的 HTML（可含 <script>、<svg>）。它在沙箱 iframe 中运行，无法访问本站。",
    )
    height = blocks.IntegerBlock(
        label="高度（像素）", default=420, min_value=80, max_value=4000
    )
    caption = blocks.CharBlock(
        label="图注", required=False, max_length=500, help_text=MATH_HELP
    )

    class Meta:
        icon = "site"
        template = "blocks/html_figure_block.html"
        group = GROUP_MEDIA
        description = "交互式 HTML 图（在沙箱 iframe 中显示）"
        preview_value = {
            "html": (
                '<svg viewBox="0 0 200 60" xmlns="http://www.w3.org/2000/svg">'
                '<rect x="5" y="5" width="60" height="50" fill="#4f7cac"/>'
                '<text x="80" y="35">SMEM</text></svg>'
            ),
            "height": 120,
            "caption": "共享内存示意",
        }

    inline_math_fields = ("caption",)

    def render(self, value, context=None):
        # Feed readers strip iframes (and would not run the figure): link to
        # the post instead. `page_url` is the post's absolute URL.
        if is_feed(context):
            return format_html(
                '<p><a href="{}">交互式图：在网页中查看</a></p>',
                context.get("page_url") or "",
            )
        return super().render(value, context)


class PostBodyBlock(blocks.StreamBlock):
    """The body of a post."""

    heading = HeadingBlock(label="标题")
    paragraph = ParagraphBlock(label="段落")
    markdown = MarkdownBlock(label="Markdown")
    code = CodeBlock(label="代码")
    math = MathBlock(label="公式")
    image = ImageBlock(label="图片")
    table = TableBlock(label="表格")
    callout = CalloutBlock(label="提示框")
    quote = QuoteBlock(label="引用")
    embed = EmbedBlock(label="嵌入")
    html_figure = HtmlFigureBlock(label="交互式图")

    class Meta:
        block_counts = {}

    def render_basic(self, value, context=None):
        # Number every heading of the page together, heading blocks and Markdown
        # headings alike, so two "小结" get "小结" and "小结-2" here and in the
        # table of contents; give every block its stream id (for footnote ids).
        anchors = body_anchors(value)
        parent = dict(context or {})

        def child_context(index, child):
            extra = {"block_id": child.id or ""}
            if child.block_type == "heading":
                extra["heading_anchor"] = anchors[index][0]
            elif child.block_type == "markdown":
                extra["heading_anchors"] = anchors.get(index, [])
            return {**parent, **extra}

        return format_html_join(
            "\n",
            "{}",
            (
                (child.render(context=child_context(index, child)),)
                for index, child in enumerate(value)
            ),
        )


def body_headings(stream_value) -> list[tuple[int, str, str]]:
    """Return (block index, level, text) for every heading of a body, in order.

    Heading blocks and the headings inside Markdown blocks both count.
    """
    headings = []
    for index, child in enumerate(stream_value):
        if child.block_type == "heading":
            headings.append((index, child.value["level"], child.value["text"]))
        elif child.block_type == "markdown":
            headings.extend(
                (index, tag, text) for tag, text in markdown_headings(child.value)
            )
    return headings


def body_anchors(stream_value) -> dict[int, list[str]]:
    """Return the page-unique anchors of each block's headings, by block index."""
    headings = body_headings(stream_value)
    anchors: dict[int, list[str]] = {}
    for (index, _, _), anchor in zip(
        headings, unique_anchors(text for _, _, text in headings), strict=True
    ):
        anchors.setdefault(index, []).append(anchor)
    return anchors
