"""The shapes the demo content is written in, and helpers for body blocks.

Bodies are StreamField values in Wagtail's raw form: a list of
``{"type": ..., "value": ...}`` dicts, the same JSON the admin stores. Image
blocks name a `DemoImage`; `load_demo` swaps it for the image's pk.
"""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image as PILImage


@dataclass(frozen=True)
class DemoImage:
    """An image drawn with Pillow when the demo is loaded, found again by title."""

    title: str
    filename: str
    draw: Callable[[], PILImage.Image]


@dataclass(frozen=True)
class Post:
    """A PostPage."""

    slug: str
    title: str
    date: datetime.date
    updated: datetime.date
    summary: str
    tags: tuple[str, ...]
    body: list[dict]
    cover: DemoImage | None = None


@dataclass(frozen=True)
class Series:
    """A SeriesPage: a section (newest first) or a series (reading order)."""

    slug: str
    title: str
    intro: str
    ordering: str
    # Children are created in this order, which is the explorer order.
    children: tuple[Post | Series, ...] = field(default_factory=tuple)


def _source(text: str) -> str:
    """Dedent a triple-quoted snippet and drop the blank first and last lines."""
    return textwrap.dedent(text).strip("\n")


def heading(text: str, level: str = "h2") -> dict:
    return {"type": "heading", "value": {"text": text, "level": level}}


def paragraph(html: str) -> dict:
    return {"type": "paragraph", "value": html}


def markdown(text: str) -> dict:
    return {"type": "markdown", "value": _source(text) + "\n"}


def code(
    language: str,
    source: str,
    *,
    filename: str = "",
    highlight_lines: str = "",
    line_numbers: bool = True,
) -> dict:
    return {
        "type": "code",
        "value": {
            "language": language,
            "filename": filename,
            "code": _source(source),
            "highlight_lines": highlight_lines,
            "line_numbers": line_numbers,
        },
    }


def math(tex: str, label: str = "") -> dict:
    return {"type": "math", "value": {"tex": _source(tex), "label": label}}


def image(demo_image: DemoImage, *, alt: str = "", caption: str = "") -> dict:
    return {
        "type": "image",
        "value": {"image": demo_image, "alt": alt, "caption": caption},
    }


def table(caption: str, rows: list[list[str]]) -> dict:
    """A table whose first row is its header."""
    return {
        "type": "table",
        "value": {
            "table_caption": caption,
            "table_header_choice": "row",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": rows,
        },
    }


def callout(kind: str, body_html: str, title: str = "") -> dict:
    return {
        "type": "callout",
        "value": {"kind": kind, "title": title, "body": body_html},
    }


def quote(html: str, source: str = "") -> dict:
    return {"type": "quote", "value": {"quote": html, "source": source}}


def html_figure(html: str, *, height: int, caption: str = "") -> dict:
    return {
        "type": "html_figure",
        "value": {"html": _source(html), "height": height, "caption": caption},
    }
