"""Raw HTML in a body, and the images and figures it and Markdown images make.

A directive comment (break, label, embed) acts on the blocks around it; any
other HTML fragment becomes image blocks (bare `<img>`s) or an HTML figure,
reading a local `<iframe src>` file. `<!-- block:TYPE -->` regions are found
here (`REGION_START`) and read in `blocks`. `RawHtmlMixin` is part of
`blocks._BodyParser`.
"""

from __future__ import annotations

import bisect
import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from markdown_it.token import Token

from blog.svg import svg_size
from rendering import find_inline_math
from rendering.markdown import LIBRARY_IMAGE

from .assets import Located, local_part
from .inline import IMAGE_SIZE, IMAGE_SUFFIXES, ImageRef, escape_text, html_attrs
from .links import WIKILINK, is_external, parse_wikilink
from .parsed import Formula, ImageSlot, LocalImage, image_marker

DEFAULT_FIGURE_HEIGHT = 420
FIGURE_HEIGHTS = (80, 4000)  # HtmlFigureBlock's limits

REGION_START = re.compile(r"<!--\s*block:([\w-]+)(.*?)-->\s*", re.DOTALL)
REGION_END = re.compile(r"\s*<!--\s*/block\s*-->\s*")
_FIRST_TAG = re.compile(r"\s*<([A-Za-z][\w-]*)")
_TAG = re.compile(r"<[^>]*>")
_FIGCAPTION = re.compile(r"<figcaption[^>]*>(.*?)</figcaption>", re.DOTALL | re.I)
_RICH_FRAGMENT = re.compile(
    r"<(iframe|svg|script|canvas|video|audio|object|embed|table|math|form)\b", re.I
)
IMG_TAG = re.compile(r"<img\b[^>]*>", re.I)
# One inline drawing: from its first <svg to its last </svg> (an <svg> may nest).
_SVG_ELEMENT = re.compile(r"<svg\b.*</svg\s*>", re.I | re.DOTALL)
_SVG_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.DOTALL)
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_IFRAME_TAG = re.compile(r"<iframe\b[^>]*>", re.I)
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


@dataclass
class Region:
    """A `<!-- block:TYPE … -->…<!-- /block -->` region, kept verbatim."""

    type: str
    attrs: dict[str, str]
    content: str
    start: int  # 0-based line of the opening comment


class RawHtmlMixin:
    """Images, figures, raw HTML and directive comments, for `_BodyParser`."""

    def _image(self, ref: ImageRef) -> None:
        src = ref.src.strip()
        if src.startswith(("http://", "https://", "//")):
            self._remote_image(src, ref)
            return
        if is_external(src):
            self._warn(f"image {src[:40]}… not imported", ref.line)
            return
        path = self._local_file(src, ref.line, "missing image")
        if path is None:
            return
        self.result.assets.add(path)
        caption = self._caption_formulas(ref.caption, ref.line)
        self.result.images.append(LocalImage(path, ref.alt, caption, ref.line))
        value = {
            "image": ImageSlot(len(self.result.images) - 1),
            "alt": ref.alt[:255],
            "caption": caption[:500],
        }
        if ref.width:
            value["width"] = ref.width
        self._emit("image", value, ref.line)

    def _local_file(self, src: str, line: int, missing: str) -> Path | None:
        """Return the vault file ``src`` names; warn if it is missing or refused."""
        located = self.finder.locate(src, self.base) if self.finder else Located()
        if located.warning:
            self._warn(located.warning, line)
        elif located.path is None:
            self._warn(f"{missing}: {local_part(src) or src}", line)
        return located.path

    def _remote_image(self, src: str, ref: ImageRef) -> None:
        """Emit an image shown from its URL; downloaded later with --fetch-images."""
        url = remote_url(src)
        if url is None:
            self._warn(f"remote image URL not valid; kept as a link: {src}", ref.line)
            label = escape_text(ref.alt or src)
            self._add_prose(
                f'<p><a href="{html.escape(src)}">{label}</a></p>', ref.line
            )
            return
        caption = self._caption_formulas(ref.caption, ref.line)
        self.result.images.append(
            LocalImage(None, ref.alt, caption, ref.line, url=url, src=src)
        )
        value = {
            "image": ImageSlot(len(self.result.images) - 1),
            "url": url,
            "alt": ref.alt[:255],
            "caption": caption[:500],
        }
        if ref.width:
            value["width"] = ref.width
        self._emit("image", value, ref.line)

    # Images in Markdown source -----------------------------------------------

    def _markdown_images(self, source: str, line: int) -> str:
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
                    (_MD_IMAGE, self._md_image),
                    (WIKILINK, self._wiki_image),
                    (IMG_TAG, self._img_tag),
                ):
                    text = pattern.sub(
                        lambda m, at=at, replace=replace: (
                            m.group(0) if _in_code(m) else replace(m, at)
                        ),
                        text,
                    )
            out.append(text)
        return "\n".join(out)

    def _md_image(self, match: re.Match, line: int) -> str:
        alt, dest, title = match.group(1), match.group(2), match.group(3) or ""
        src = dest[1:-1] if dest.startswith("<") else dest
        marker = self._image_marker(src, alt, line)
        if marker is None:
            return match.group(0)
        return f"![{alt}]({_destination(marker, src)}{title})"

    def _wiki_image(self, match: re.Match, line: int) -> str:
        wiki = parse_wikilink(match.group(2))
        if not match.group(1) or not wiki.target.lower().endswith(IMAGE_SUFFIXES):
            return match.group(0)
        alt = "" if IMAGE_SIZE.fullmatch(wiki.text) else wiki.text
        marker = self._image_marker(wiki.target, alt, line)
        if marker is None:
            return match.group(0)
        return f"![{alt}]({_destination(marker, wiki.target)})"

    def _img_tag(self, match: re.Match, line: int) -> str:
        attrs = html_attrs(match.group(0))
        alt = attrs.get("alt", "").replace("]", "\\]")
        src = attrs.get("src", "")
        marker = self._image_marker(src, alt, line)
        if marker is None:
            return match.group(0)
        title = attrs.get("title", "").replace('"', "'")
        title = f' "{title}"' if title else ""
        return f"![{alt}]({_destination(marker, src)}{title})"

    def _html_images(self, markup: str, line: int) -> str:
        """Return HTML with the ``src`` of each ``<img>`` put in the media library."""

        def tag(match: re.Match) -> str:
            return _IMG_SRC.sub(
                lambda m: self._img_src(m, line) or m.group(0), match.group(0), count=1
            )

        return IMG_TAG.sub(tag, markup)

    def _img_src(self, match: re.Match, line: int) -> str | None:
        src = html.unescape(next(g for g in match.groups()[1:] if g is not None))
        marker = self._image_marker(src, "", line)
        return None if marker is None else f'{match.group(1)}"{marker}"'

    def _image_marker(self, src: str, alt: str, line: int) -> str | None:
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
            path = self._local_file(src, line, "missing image")
            if path is None:
                return None
            self.result.assets.add(path)
            image = LocalImage(path, alt, "", line, src=src)
        self.result.images.append(image)
        return image_marker(len(self.result.images) - 1)

    def _caption_formulas(self, caption: str, line: int) -> str:
        """Check a caption's formulas; return it with those repaired (`FormulaFixer`)."""
        parts, pos = [], 0
        for formula in find_inline_math(caption):
            tex, error = self.fixer.fix(formula.tex, False)
            self.result.formulas.append(Formula(tex, False, line))
            if error is not None:
                self._warn(
                    f"formula kept with an error: {' '.join(error.split())}", line
                )
            source = caption[formula.start : formula.end]
            parts += [caption[pos : formula.start], source.replace(formula.tex, tex)]
            pos = formula.end
        return "".join(parts) + caption[pos:]

    def _figure(
        self, markup: str, height: int, caption: str, line: int, *, images=False
    ) -> None:
        """Emit an HTML figure; with ``images``, its ``<img>``s are imported too."""
        if images:
            markup = self._html_images(markup, line)
        low, high = FIGURE_HEIGHTS
        value = {
            "html": markup,
            "height": min(max(height, low), high),
            "caption": caption[:500],
        }
        self._emit("html_figure", value, line)

    def _read_local(self, path: Path, line: int, what: str) -> str | None:
        """Return a vault file's text; files outside the vault are not read."""
        if self.finder is None or not self.finder.inside(path):
            self._warn(
                f"{what} {path} is outside the imported folder; not imported", line
            )
            return None
        data = path.read_bytes()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            bad = data[: error.start].count(b"\n") + 1
            self._warn(
                f"{path.name}:{bad}: not valid UTF-8; invalid bytes replaced", line
            )
            return data.decode("utf-8", errors="replace")

    # Raw HTML and directives ---------------------------------------------------

    def _html(self, nodes: list[list[Token]], i: int) -> int:
        token = nodes[i][0]
        line = self._line(token)
        start = token.map[0] if token.map else 0
        if start in self.regions:
            self._region(self.regions[start], line)
            return i + 1
        content = token.content.strip()
        if content.startswith("<!--"):
            self._comment(content, line)
            return i + 1
        tag_match = _FIRST_TAG.match(content)
        end = token.map[1] if token.map else start + 1
        if tag_match is None:
            return i + 1
        tag = tag_match.group(1).lower()
        if tag in ("br", "hr"):
            self._flush()
            return i + 1
        end = self._balanced_end(tag, start, end)
        fragment = "\n".join(self.source_lines[start:end]).strip()
        j = i + 1
        while j < len(nodes) and nodes[j][0].map and nodes[j][0].map[0] < end:
            j += 1
        self._fragment(fragment, line)
        return j

    def _balanced_end(self, tag: str, start: int, end: int) -> int:
        """Return the line after the one closing the ``<tag>`` opened at ``start``."""
        if tag in ("img", "input", "source", "meta", "link", "wbr", "embed"):
            return end
        if not hasattr(self, "_tag_depths"):
            self._tag_depths = TagDepths(self.source_lines)
        closing = self._tag_depths.closing_line(tag, start)
        if closing is None:
            self._warn(f"<{tag}> is never closed", start + self.first_line)
            return end
        return max(closing + 1, end)

    def _fragment(self, fragment: str, line: int) -> None:
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
        if self._inline_drawing(without_caption, caption, line):
            return
        if images and not _RICH_FRAGMENT.search(fragment) and not text:
            for tag in images:
                attrs = html_attrs(tag)
                self._image(
                    ImageRef(
                        attrs.get("src", ""),
                        attrs.get("alt", ""),
                        attrs.get("title", "") or caption,
                        line,
                    )
                )
            return
        height = _height(fragment.split(">", 1)[0])
        iframe = _IFRAME_TAG.search(fragment)
        if iframe is not None:
            attrs = html_attrs(iframe.group(0))
            src = attrs.get("src", "")
            if src and not is_external(src) and not src.startswith("//"):
                path = self._local_file(src, line, "missing figure file")
                if path is None:
                    return
                markup = self._read_local(path, line, "figure file")
                if markup is None:
                    return
                self.result.assets.add(path)
                height = _height(iframe.group(0))
                caption = caption or attrs.get("title", "")
                caption = self._caption_formulas(caption, line)
                self._figure(markup, height, caption, line)
                return
        caption = self._caption_formulas(caption, line)
        self._figure(fragment, height, caption, line, images=True)

    def _inline_drawing(self, fragment: str, caption: str, line: int) -> bool:
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
        name = (
            f"drawing-{hashlib.sha1(data, usedforsecurity=False).hexdigest()[:12]}.svg"
        )
        try:
            svg_size(data, name)
        except ValueError as error:
            self._warn(f"inline <svg> kept as an HTML figure: {error}", line)
            return False
        title = _SVG_TITLE.search(markup)
        alt = (
            " ".join(html.unescape(_TAG.sub("", title.group(1))).split())
            if title
            else ""
        )
        caption = self._caption_formulas(caption, line)
        self.result.images.append(
            LocalImage(None, alt, caption, line, data=data, name=name)
        )
        value = {
            "image": ImageSlot(len(self.result.images) - 1),
            "alt": alt[:255],
            "caption": caption[:500],
        }
        self._emit("image", value, line)
        return True

    def _comment(self, content: str, line: int) -> None:
        """Act on a directive comment: break, label, numbered, embed; ignore the rest."""
        body = content[4:]
        body = body[: body.find("-->")] if "-->" in body else body
        body = body.strip()
        if body == "break":
            self._flush()
        elif body == "numbered":
            self.pending_numbered = True
        elif match := re.fullmatch(r"label\s*:\s*(.+)", body, re.DOTALL):
            self.pending_label = match.group(1).strip()
        elif match := re.fullmatch(r"embed\s*:\s*(\S+)", body):
            url = match.group(1)
            parts = urlsplit(url)
            if parts.scheme.lower() in ("http", "https") and parts.netloc:
                self._emit("embed", url, line)
            else:
                self._warn(f"embed not imported: {url!r} is not an http(s) URL", line)


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


# An HTML start or end tag on one line; `<` inside a tag ends it, so a line of
# unclosed `<a ` costs linear time.
_ANY_TAG = re.compile(r"</([A-Za-z][\w-]*)\s*>|<([A-Za-z][\w-]*)(?=[\s>/])[^<>]*?(/?)>")


class TagDepths:
    """Where each HTML element opened on a line is closed, from one pass over a body.

    For every tag name, the net number of elements each line opens (start tags
    not self-closed, minus end tags) and, by a monotonic stack, the first later
    line where the depth falls back: so any number of unclosed `<div>`s costs
    linear time, not a scan to the end of the body for each.
    """

    def __init__(self, lines: list[str]) -> None:
        self._lines: dict[str, list[int]] = {}  # tag -> lines with a net change
        self._depths: dict[str, list[int]] = {}  # tag -> depth after those lines
        for number, text in enumerate(lines):
            net: dict[str, int] = {}
            for match in _ANY_TAG.finditer(text):
                if match.group(1):
                    name = match.group(1).lower()
                    net[name] = net.get(name, 0) - 1
                elif not match.group(3):
                    name = match.group(2).lower()
                    net[name] = net.get(name, 0) + 1
            for name, change in net.items():
                if change:
                    depths = self._depths.setdefault(name, [])
                    self._lines.setdefault(name, []).append(number)
                    depths.append((depths[-1] if depths else 0) + change)
        self._falls: dict[str, list[int | None]] = {}

    def closing_line(self, tag: str, start: int) -> int | None:
        """Return the first line from ``start`` on where the ``<tag>`` is closed.

        That is the first line where the depth of ``tag`` is back to what it
        was before ``start`` (``start`` itself when it opens nothing); None
        when the element is never closed.
        """
        lines = self._lines.get(tag, [])
        at = bisect.bisect_left(lines, start)
        if at == len(lines) or lines[at] != start:
            return start
        depths = self._depths[tag]
        before = depths[at - 1] if at else 0
        if depths[at] <= before:
            return start
        falls = self._falls.get(tag)
        if falls is None:
            falls = self._falls[tag] = _next_not_above(depths)
        fall = falls[at]
        return None if fall is None else lines[fall]


def _next_not_above(values: list[int]) -> list[int | None]:
    """Return, for each index i, the first j > i with ``values[j] <= values[i - 1]``.

    ``values[-1]`` counts as 0 (the depth before the first line).
    """
    padded = [0, *values]
    nearest: list[int | None] = [None] * len(padded)
    stack: list[int] = []
    for j, value in enumerate(padded):
        while stack and value <= padded[stack[-1]]:
            nearest[stack.pop()] = j
        stack.append(j)
    # Index i of `values` asks about padded[i] (the depth before it): padded
    # index j is values index j - 1.
    return [None if k is None else k - 1 for k in nearest[: len(values)]]


def _height(tag: str | None) -> int:
    """Return the pixel height an HTML start tag asks for, or the default."""
    if not tag:
        return DEFAULT_FIGURE_HEIGHT
    match = re.search(r"""\bheight\s*=\s*["']?(\d+)""", tag, re.I)
    return int(match.group(1)) if match else DEFAULT_FIGURE_HEIGHT
