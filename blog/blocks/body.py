"""The body of a post: a stream of the blocks, and the headings it holds."""

from django.utils.html import format_html_join
from wagtail import blocks

from rendering import equation_rows, has_tag, library_image_ids

from .base import figure_image_ids, library_images, public_paths
from .code import CodeBlock, DiagramBlock, MathBlock
from .media import EmbedBlock, HtmlFigureBlock, ImageBlock
from .note import NoteBlock
from .outline import body_anchors
from .prose import (
    CalloutBlock,
    HeadingBlock,
    MarkdownBlock,
    ParagraphBlock,
    QuoteBlock,
    TableBlock,
)


class PostBodyBlock(blocks.StreamBlock):
    """The body of a post."""

    heading = HeadingBlock(label="标题")
    paragraph = ParagraphBlock(label="段落")
    markdown = MarkdownBlock(label="Markdown")
    code = CodeBlock(label="代码")
    math = MathBlock(label="公式")
    diagram = DiagramBlock(label="图表")
    image = ImageBlock(label="图片")
    table = TableBlock(label="表格")
    callout = CalloutBlock(label="提示框")
    quote = QuoteBlock(label="引用")
    embed = EmbedBlock(label="嵌入")
    html_figure = HtmlFigureBlock(label="交互式图")
    note = NoteBlock(label="嵌入文章")

    class Meta:
        block_counts = {}

    def render_basic(self, value, context=None):
        # Number every heading of the page together, heading blocks and Markdown
        # headings alike, so two "小结" get "小结" and "小结-2" here and in the
        # table of contents; give every block its stream id (for footnote ids).
        anchors = body_anchors(value)
        numbers = equation_numbers(value)
        parent = dict(context or {})
        # A post embedded in another (blog.blocks.note): its headings' ids
        # must not take the embedding page's.
        prefix = parent.get("anchor_prefix", "")
        # The library images every Markdown block and HTML figure shows, at once.
        ids = []
        for child in value:
            if child.block_type == "markdown":
                ids += library_image_ids(child.value)
            elif child.block_type == "html_figure":
                ids += figure_image_ids(child.value["html"])
        parent["library_images"] = library_images(ids)

        def child_context(index, child):
            extra = {"block_id": child.id or ""}
            if child.block_type == "heading":
                extra["heading_anchor"] = prefix + anchors[index][0]
            elif child.block_type == "markdown":
                extra["heading_anchors"] = [prefix + a for a in anchors.get(index, [])]
            elif index in numbers:
                extra["equation_number"] = numbers[index]
            return {**parent, **extra}

        return format_html_join(
            "\n",
            "{}",
            (
                (child.render(context=child_context(index, child)),)
                for index, child in enumerate(value)
            ),
        )


def equation_numbers(stream_value) -> dict[int, str]:
    """Return the automatic number of each numbered math block, by block index.

    In page order, (1), (2)…, as LaTeX numbers equations: a block with its own
    label or a \\tag takes no number, and the rows KaTeX numbers itself (an
    ``align`` environment, whose block takes no number of its own) take theirs
    from the same count.
    """
    numbers: dict[int, str] = {}
    count = 0
    for index, child in enumerate(stream_value):
        if child.block_type != "math":
            continue
        value = child.value
        tex = value.get("tex") or ""
        rows = equation_rows(tex)
        if (
            value.get("numbered")
            and not rows
            and not (value.get("label") or "").strip()
            and not has_tag(tex)
        ):
            count += 1
            numbers[index] = str(count)
        count += rows
    return numbers


DECONSTRUCT_ALIASES = public_paths(PostBodyBlock)
