"""StreamField blocks for post bodies.

Every block hands its template finished HTML from `rendering`, whose
renderers escape their input; templates only place it. Every block declares
its text in ``Meta.text`` (see `base.Text`). Migrations and the rest of the
site import the blocks from here, ``blog.blocks.<Name>``, whichever module
defines them.
"""

from .base import (
    CALLOUT_KINDS,
    GROUP_CODE,
    GROUP_MEDIA,
    GROUP_TEXT,
    MATH_HELP,
    RICH_TEXT_FEATURES,
    CodeTextBlock,
    InlineMathFieldsMixin,
    Text,
    inline_html,
    is_feed,
    math_errors_allowed,
    math_output,
    text_declaration,
)
from .body import PostBodyBlock
from .code import CodeBlock, DiagramBlock, MathBlock
from .media import (
    FIGURE_SIZE_SCRIPT,
    EmbedBlock,
    HtmlFigureBlock,
    ImageBlock,
    figure_document,
)
from .note import NoteBlock
from .outline import body_anchors, body_headings
from .prose import (
    CalloutBlock,
    HeadingBlock,
    MarkdownBlock,
    ParagraphBlock,
    QuoteBlock,
    TableBlock,
)

__all__ = [
    "CALLOUT_KINDS",
    "GROUP_CODE",
    "GROUP_MEDIA",
    "GROUP_TEXT",
    "MATH_HELP",
    "RICH_TEXT_FEATURES",
    "CalloutBlock",
    "CodeBlock",
    "CodeTextBlock",
    "DiagramBlock",
    "EmbedBlock",
    "HeadingBlock",
    "HtmlFigureBlock",
    "ImageBlock",
    "InlineMathFieldsMixin",
    "MarkdownBlock",
    "MathBlock",
    "NoteBlock",
    "ParagraphBlock",
    "PostBodyBlock",
    "QuoteBlock",
    "TableBlock",
    "Text",
    "body_anchors",
    "body_headings",
    "FIGURE_SIZE_SCRIPT",
    "figure_document",
    "inline_html",
    "is_feed",
    "math_errors_allowed",
    "math_output",
    "text_declaration",
]
