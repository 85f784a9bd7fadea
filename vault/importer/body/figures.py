"""HTML fragments: image blocks, an inline ``<svg>`` drawing, or an HTML figure.

A fragment of bare ``<img>``s becomes image blocks; one ``<svg>`` an SVG
image; any other an HTML figure, reading a local ``<iframe src>`` file.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from blog.svg import svg_size

from ..inline import ImageRef, html_attrs
from ..links import is_external
from ..parsed import ImageSlot, LocalImage
from .context import BodyContext
from .formulas import caption_formulas
from .images import IMG_TAG, html_images, image

DEFAULT_FIGURE_HEIGHT = 420
FIGURE_HEIGHTS = (80, 4000)  # HtmlFigureBlock's limits

_TAG = re.compile(r"<[^>]*>")
_FIGCAPTION = re.compile(r"<figcaption[^>]*>(.*?)</figcaption>", re.DOTALL | re.I)
_RICH_FRAGMENT = re.compile(
    r"<(iframe|svg|script|canvas|video|audio|object|embed|table|math|form)\b", re.I
)
# One inline drawing: from its first <svg to its last </svg> (an <svg> may nest).
_SVG_ELEMENT = re.compile(r"<svg\b.*</svg\s*>", re.I | re.DOTALL)
_SVG_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.DOTALL)
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_IFRAME_TAG = re.compile(r"<iframe\b[^>]*>", re.I)


def html_fragment(ctx: BodyContext, fragment: str, line: int) -> None:
    """Turn raw HTML into image blocks (bare <img>s) or an HTML figure."""
    caption_match = _FIGCAPTION.search(fragment)
    caption = (
        html.unescape(_TAG.sub("", caption_match.group(1))).strip()
        if caption_match
        else ""
    )
    without_caption = _FIGCAPTION.sub("", fragment)
    images = IMG_TAG.findall(fragment)
    text = " ".join(html.unescape(_TAG.sub(" ", without_caption)).split())
    if len(images) == 1 and 0 < len(text) <= 300 and not caption:
        # <div align="center"><img src=…><br>图 1：…</div>: a captioned image.
        caption = text
        text = ""
    if _inline_drawing(ctx, without_caption, caption, line):
        return
    if images and not _RICH_FRAGMENT.search(fragment) and not text:
        for tag in images:
            attrs = html_attrs(tag)
            image(
                ctx,
                ImageRef(
                    attrs.get("src", ""),
                    attrs.get("alt", ""),
                    attrs.get("title", "") or caption,
                    line,
                ),
            )
        return
    height = _height(fragment.split(">", 1)[0])
    iframe = _IFRAME_TAG.search(fragment)
    if iframe is not None:
        attrs = html_attrs(iframe.group(0))
        src = attrs.get("src", "")
        if src and not is_external(src) and not src.startswith("//"):
            path = ctx.local_file(src, line, "missing figure file")
            if path is None:
                return
            markup = _read_local(ctx, path, line, "figure file")
            if markup is None:
                return
            ctx.result.assets.add(path)
            height = _height(iframe.group(0))
            caption = caption or attrs.get("title", "")
            caption = caption_formulas(ctx, caption, line)
            figure(ctx, markup, height, caption, line)
            return
    caption = caption_formulas(ctx, caption, line)
    figure(ctx, fragment, height, caption, line, images=True)


def figure(
    ctx: BodyContext,
    markup: str,
    height: int,
    caption: str,
    line: int,
    *,
    images=False,
) -> None:
    """Emit an HTML figure; with ``images``, its ``<img>``s are imported too."""
    if images:
        markup = html_images(ctx, markup, line)
    low, high = FIGURE_HEIGHTS
    value = {
        "html": markup,
        "height": min(max(height, low), high),
        "caption": caption[:500],
    }
    ctx.emit("html_figure", value, line)


def _read_local(ctx: BodyContext, path: Path, line: int, what: str) -> str | None:
    """Return a vault file's text; files outside the vault are not read."""
    if ctx.finder is None or not ctx.finder.inside(path):
        ctx.warn(f"{what} {path} is outside the imported folder; not imported", line)
        return None
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[: error.start].count(b"\n") + 1
        ctx.warn(f"{path.name}:{bad}: not valid UTF-8; invalid bytes replaced", line)
        return data.decode("utf-8", errors="replace")


def _inline_drawing(ctx: BodyContext, fragment: str, caption: str, line: int) -> bool:
    """Emit a fragment that is one ``<svg>`` drawing as an SVG image.

    Return False, emitting nothing, when the fragment holds more than the
    drawing (and its wrapper); a drawing that is not well-formed XML is
    kept as an HTML figure, with a warning.
    """
    match = _SVG_ELEMENT.search(fragment)
    if match is None:
        return False
    rest = fragment[: match.start()] + fragment[match.end() :]
    if _RICH_FRAGMENT.search(rest) or IMG_TAG.search(rest):
        return False
    if html.unescape(_TAG.sub("", rest)).strip():
        return False
    markup = _standalone_svg(match.group(0))
    data = markup.encode("utf-8")
    name = f"drawing-{hashlib.sha1(data, usedforsecurity=False).hexdigest()[:12]}.svg"
    try:
        svg_size(data, name)
    except ValueError as error:
        ctx.warn(f"inline <svg> kept as an HTML figure: {error}", line)
        return False
    title = _SVG_TITLE.search(markup)
    alt = " ".join(html.unescape(_TAG.sub("", title.group(1))).split()) if title else ""
    caption = caption_formulas(ctx, caption, line)
    ctx.result.images.append(LocalImage(None, alt, caption, line, data=data, name=name))
    value = {
        "image": ImageSlot(len(ctx.result.images) - 1),
        "alt": alt[:255],
        "caption": caption[:500],
    }
    ctx.emit("image", value, line)
    return True


def _standalone_svg(markup: str) -> str:
    """Return an inline ``<svg>`` as a file of its own: its namespaces declared.

    HTML lets an inline drawing leave them out; a browser shows an SVG file
    without them as XML text, not a drawing.
    """
    start = markup[: markup.index(">") + 1]
    added = ""
    if "xmlns=" not in start:
        added += f' xmlns="{SVG_NS}"'
    if "xlink:" in markup and "xmlns:xlink" not in start:
        added += f' xmlns:xlink="{XLINK_NS}"'
    return "<svg" + added + markup[4:] if added else markup


def _height(tag: str | None) -> int:
    """Return the pixel height an HTML start tag asks for, or the default."""
    if not tag:
        return DEFAULT_FIGURE_HEIGHT
    match = re.search(r"""\bheight\s*=\s*["']?(\d+)""", tag, re.I)
    return int(match.group(1)) if match else DEFAULT_FIGURE_HEIGHT
