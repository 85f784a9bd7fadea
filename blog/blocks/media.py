"""Blocks of media: images, embedded content, interactive HTML figures."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.utils.html import format_html
from wagtail import blocks
from wagtail.embeds.blocks import EmbedBlock as WagtailEmbedBlock
from wagtail.images import get_image_model
from wagtail.images.blocks import ImageChooserBlock

from .base import (
    GROUP_MEDIA,
    MATH_HELP,
    InlineMathFieldsMixin,
    Text,
    figure_image_ids,
    is_feed,
    public_paths,
    shown_images,
    with_figure_images,
)


class ImageBlock(InlineMathFieldsMixin, blocks.StructBlock):
    """An image with alt text and caption, served as responsive renditions.

    Instead of a library image it may show a remote one by its URL, as written
    in imported Markdown (``![alt](https://…)``).
    """

    image = ImageChooserBlock(label="图片", required=False)
    url = blocks.URLBlock(
        label="或图片网址",
        required=False,
        help_text="不选择图片时，显示这个网址上的外部图片（http:// 或 https://）",
    )
    alt = blocks.CharBlock(
        label="替代文本",
        required=False,
        max_length=255,
        help_text="替代文本；留空则使用图片标题",
    )
    caption = blocks.CharBlock(
        label="图注", required=False, max_length=500, help_text=MATH_HELP
    )
    width = blocks.IntegerBlock(
        label="显示宽度",
        required=False,
        min_value=16,
        max_value=4000,
        help_text="以像素计的最大显示宽度；留空则按栏宽或图片本身的宽度显示",
    )

    class Meta:
        icon = "image"
        template = "blocks/image_block.html"
        group = GROUP_MEDIA
        description = "图片（自动生成响应式尺寸与 WebP/AVIF）"
        preview_value = {"alt": "", "caption": "图 1：示意图"}
        text = {
            "image": Text.NONE,
            "url": Text.NONE,
            "alt": Text.LABEL,
            "caption": Text.PROSE,
            "width": Text.NONE,
        }

    inline_math_fields = ("caption",)

    def clean(self, value):
        value = super().clean(value)
        if value.get("image") is None:
            url = value.get("url") or ""
            if not url:
                raise blocks.StructBlockValidationError(
                    {"image": ValidationError("请选择一张图片，或填写图片网址")}
                )
            if urlsplit(url).scheme.lower() not in ("http", "https"):
                raise blocks.StructBlockValidationError(
                    {"url": ValidationError("图片网址须以 http:// 或 https:// 开头")}
                )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        image = value.get("image")
        context["alt"] = value.get("alt") or (image.title if image else "")
        return context


class EmbedBlock(WagtailEmbedBlock):
    """A video or other oEmbed content, by URL."""

    class Meta:
        icon = "media"
        template = "blocks/embed_block.html"
        group = GROUP_MEDIA
        description = "嵌入视频等外部内容（oEmbed 链接）"
        preview_value = "https://www.youtube.com/watch?v=bDcPmZQwV3g"
        text = Text.NONE  # a URL

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
        # The HTML is the figure's source markup, not prose.
        text = {"html": Text.NONE, "height": Text.NONE, "caption": Text.PROSE}

    inline_math_fields = ("caption",)

    def extract_references(self, value):
        yield from super().extract_references(value)
        # The library images it shows, so the media library lists their use.
        for pk in figure_image_ids(value.get("html") or ""):
            yield get_image_model(), str(pk), "html", "html"

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        parent = parent_context or {}
        # A live page's figure is a document at its own URL, under its own
        # policy (serving/security.py); a preview's is inline (srcdoc).
        figures_at, block_id = parent.get("figures_at"), parent.get("block_id")
        if figures_at and block_id:
            context["figure_src"] = f"{figures_at}{block_id}/"
        else:
            context["html"] = figure_document(value.get("html") or "", parent)
        return context

    def render(self, value, context=None):
        # Feed readers strip iframes (and would not run the figure): link to
        # the post instead. `page_url` is the post's absolute URL.
        if is_feed(context):
            return format_html(
                '<p><a href="{}">交互式图：在网页中查看</a></p>',
                context.get("page_url") or "",
            )
        return super().render(value, context)


# Appended to a live figure's document: tells the page around it the height of
# its content, at load, on each change and when asked, so the frame takes that
# height (static/js/figures.js). Part of the document, so its policy allows it
# by hash like the figure's own scripts (serving/security.py).
FIGURE_SIZE_SCRIPT = (
    "<script>(function () {"
    " function send() {"
    " var box = document.documentElement.getBoundingClientRect();"
    ' parent.postMessage({ figureHeight: Math.ceil(box.height) }, "*"); }'
    ' addEventListener("load", send);'
    ' addEventListener("message", function (event) {'
    ' if (event.source === parent && event.data === "figure-size?") send(); });'
    " if (window.ResizeObserver) new ResizeObserver(send)"
    ".observe(document.documentElement);"
    " })();</script>"
)


def figure_document(markup: str, parent_context: dict | None = None) -> str:
    """Return a figure's HTML as its frame shows it: library images by their URLs."""
    images = shown_images(figure_image_ids(markup), parent_context or {})
    return with_figure_images(markup, images)


DECONSTRUCT_ALIASES = public_paths(ImageBlock, EmbedBlock, HtmlFigureBlock)
