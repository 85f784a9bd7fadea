"""Images: image blocks, and the images Markdown and HTML source show.

An image block is made from ``![alt](src)``, ``![[name.png]]`` or a bare
``<img>``: a vault file (an `ImageSlot` until it is saved) or a remote URL.
A Markdown block or an HTML figure keeps its images in its source, each
replaced by a marker that becomes the saved image's reference.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from rendering.markdown import LIBRARY_IMAGE

from ..inline import IMAGE_SIZE, IMAGE_SUFFIXES, ImageRef, escape_text, html_attrs
from ..links import WIKILINK, is_external, parse_wikilink
from ..parsed import ImageSlot, LocalImage, image_marker
from .context import BodyContext
from .formulas import caption_formulas

IMG_TAG = re.compile(r"<img\b[^>]*>", re.I)
# ``![alt](dest "title")``; the destination may hold spaces, as Obsidian reads it.
_DEST_PART = r"""(?:[^\s()<>"']|\([^\s()<>"']*\))+"""  # one level of (…)
_MD_IMAGE = re.compile(
    r"!\[((?:\\.|[^\[\]\n])*)\]\(\s*"
    rf"(<[^<>\n]*>|{_DEST_PART}(?:[ \t]+{_DEST_PART})*)"
    r"""(\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
# The src of an <img> tag, quoted or not.
_IMG_SRC = re.compile(r"""(\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_FENCE_OPEN = re.compile(r"\s{0,3}(`{3,}|~{3,})")
_URL_SAFE = "/:?#[]@!$&'()*+,;=%~-._"
_is_url = URLValidator(schemes=["http", "https"])


def image(ctx: BodyContext, ref: ImageRef) -> None:
    src = ref.src.strip()
    if src.startswith(("http://", "https://", "//")):
        _remote_image(ctx, src, ref)
        return
    if is_external(src):
        ctx.warn(f"image {src[:40]}… not imported", ref.line)
        return
    path = ctx.local_file(src, ref.line, "missing image")
    if path is None:
        return
    ctx.result.assets.add(path)
    caption = caption_formulas(ctx, ref.caption, ref.line)
    ctx.result.images.append(LocalImage(path, ref.alt, caption, ref.line))
    value = {
        "image": ImageSlot(len(ctx.result.images) - 1),
        "alt": ref.alt[:255],
        "caption": caption[:500],
    }
    if ref.width:
        value["width"] = ref.width
    ctx.emit("image", value, ref.line)


def _remote_image(ctx: BodyContext, src: str, ref: ImageRef) -> None:
    """Emit an image shown from its URL; downloaded later with --fetch-images."""
    url = remote_url(src)
    if url is None:
        ctx.warn(f"remote image URL not valid; kept as a link: {src}", ref.line)
        label = escape_text(ref.alt or src)
        ctx.add_prose(f'<p><a href="{html.escape(src)}">{label}</a></p>', ref.line)
        return
    caption = caption_formulas(ctx, ref.caption, ref.line)
    ctx.result.images.append(
        LocalImage(None, ref.alt, caption, ref.line, url=url, src=src)
    )
    value = {
        "image": ImageSlot(len(ctx.result.images) - 1),
        "url": url,
        "alt": ref.alt[:255],
        "caption": caption[:500],
    }
    if ref.width:
        value["width"] = ref.width
    ctx.emit("image", value, ref.line)


# Images in Markdown source -----------------------------------------------


def markdown_images(ctx: BodyContext, source: str, line: int) -> str:
    """Return Markdown source with its images put in the media library.

    Each image a Markdown block shows (``![alt](path)``, ``![[name.png]]``,
    ``<img src>``) is imported like any other and its reference replaced by
    a marker, which becomes ``image:ID`` once the image is saved. Code is
    left alone.
    """
    out = []
    fence = ""
    for offset, text in enumerate(source.split("\n")):
        opening = _FENCE_OPEN.match(text)
        if fence:
            if opening and opening.group(1).startswith(fence):
                fence = ""
        elif opening:
            fence = opening.group(1)
        else:
            at = line + offset
            for pattern, replace in (
                (_MD_IMAGE, _md_image),
                (WIKILINK, _wiki_image),
                (IMG_TAG, _img_tag),
            ):
                text = pattern.sub(
                    lambda m, at=at, replace=replace: (
                        m.group(0) if _in_code(m) else replace(ctx, m, at)
                    ),
                    text,
                )
        out.append(text)
    return "\n".join(out)


def _md_image(ctx: BodyContext, match: re.Match, line: int) -> str:
    alt, dest, title = match.group(1), match.group(2), match.group(3) or ""
    src = dest[1:-1] if dest.startswith("<") else dest
    marker = _image_marker(ctx, src, alt, line)
    if marker is None:
        return match.group(0)
    return f"![{alt}]({_destination(marker, src)}{title})"


def _wiki_image(ctx: BodyContext, match: re.Match, line: int) -> str:
    wiki = parse_wikilink(match.group(2))
    if not match.group(1) or not wiki.target.lower().endswith(IMAGE_SUFFIXES):
        return match.group(0)
    alt = "" if IMAGE_SIZE.fullmatch(wiki.text) else wiki.text
    marker = _image_marker(ctx, wiki.target, alt, line)
    if marker is None:
        return match.group(0)
    return f"![{alt}]({_destination(marker, wiki.target)})"


def _img_tag(ctx: BodyContext, match: re.Match, line: int) -> str:
    attrs = html_attrs(match.group(0))
    alt = attrs.get("alt", "").replace("]", "\\]")
    src = attrs.get("src", "")
    marker = _image_marker(ctx, src, alt, line)
    if marker is None:
        return match.group(0)
    title = attrs.get("title", "").replace('"', "'")
    title = f' "{title}"' if title else ""
    return f"![{alt}]({_destination(marker, src)}{title})"


def html_images(ctx: BodyContext, markup: str, line: int) -> str:
    """Return HTML with the ``src`` of each ``<img>`` put in the media library."""

    def tag(match: re.Match) -> str:
        return _IMG_SRC.sub(
            lambda m: _img_src(ctx, m, line) or m.group(0), match.group(0), count=1
        )

    return IMG_TAG.sub(tag, markup)


def _img_src(ctx: BodyContext, match: re.Match, line: int) -> str | None:
    src = html.unescape(next(g for g in match.groups()[1:] if g is not None))
    marker = _image_marker(ctx, src, "", line)
    return None if marker is None else f'{match.group(1)}"{marker}"'


def _image_marker(ctx: BodyContext, src: str, alt: str, line: int) -> str | None:
    """Return the marker of an image in Markdown source, or None to keep it."""
    src = src.strip()
    if not src or LIBRARY_IMAGE.fullmatch(src):
        return None
    if src.startswith(("http://", "https://", "//")):
        url = remote_url(src)
        if url is None:
            return None
        image = LocalImage(None, alt, "", line, url=url, src=url)
    elif is_external(src):
        return None
    else:
        path = ctx.local_file(src, line, "missing image")
        if path is None:
            return None
        ctx.result.assets.add(path)
        image = LocalImage(path, alt, "", line, src=src)
    ctx.result.images.append(image)
    return image_marker(len(ctx.result.images) - 1)


def _destination(marker: str, src: str) -> str:
    """Return a Markdown image destination: in ``<>`` if the source has spaces."""
    return f"<{marker}>" if any(c.isspace() for c in src) else marker


def _in_code(match: re.Match) -> bool:
    """Return True if ``match`` lies inside a code span of its line."""
    return match.string.count("`", 0, match.start()) % 2 == 1


def remote_url(src: str) -> str | None:
    """Return the http(s) URL of a remote image as written, or None if not valid."""
    url = "https:" + src if src.startswith("//") else src
    url = quote(url.strip(), safe=_URL_SAFE)
    try:
        _is_url(url)
    except ValidationError:
        return None
    return url
