"""Raw HTML in a body, and the images and figures it and Markdown images make.

A directive comment (break, label, embed) acts on the blocks around it; any
other HTML fragment becomes image blocks (bare `<img>`s) or an HTML figure,
reading a local `<iframe src>` file. `<!-- block:TYPE -->` regions are found
here (`REGION_START`) and read in `blocks`. `RawHtmlMixin` is part of
`blocks._BodyParser`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from markdown_it.token import Token

from rendering import find_inline_math

from .assets import Located, local_part
from .inline import ImageRef, escape_text, html_attrs
from .links import is_external
from .parsed import Formula, ImageSlot, LocalImage

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
_IFRAME_TAG = re.compile(r"<iframe\b[^>]*>", re.I)


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
            self._warn(f"remote image {src} not imported; kept as a link", ref.line)
            label = escape_text(ref.alt or src)
            self._add_prose(
                f'<p><a href="{html.escape(src)}">{label}</a></p>', ref.line
            )
            return
        if is_external(src):
            self._warn(f"image {src[:40]}… not imported", ref.line)
            return
        path = self._local_file(src, ref.line, "missing image")
        if path is None:
            return
        self.result.assets.add(path)
        self._caption_formulas(ref.caption, ref.line)
        if path.suffix.lower() == ".svg":
            markup = self._read_local(path, ref.line, "image")
            if markup is not None:
                self._figure(markup, DEFAULT_FIGURE_HEIGHT, ref.caption, ref.line)
            return
        self.result.images.append(LocalImage(path, ref.alt, ref.caption, ref.line))
        value = {
            "image": ImageSlot(len(self.result.images) - 1),
            "alt": ref.alt[:255],
            "caption": ref.caption[:500],
        }
        self._emit("image", value, ref.line)

    def _local_file(self, src: str, line: int, missing: str) -> Path | None:
        """Return the vault file ``src`` names; warn if it is missing or refused."""
        located = self.finder.locate(src, self.base) if self.finder else Located()
        if located.warning:
            self._warn(located.warning, line)
        elif located.path is None:
            self._warn(f"{missing}: {local_part(src) or src}", line)
        return located.path

    def _caption_formulas(self, caption: str, line: int) -> None:
        self.result.formulas.extend(
            Formula(m.tex, False, line) for m in find_inline_math(caption)
        )

    def _figure(self, markup: str, height: int, caption: str, line: int) -> None:
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
        opens = re.compile(rf"<{tag}(?=[\s>/])[^>]*?(/?)>", re.I)
        closes = re.compile(rf"</{tag}\s*>", re.I)
        depth = 0
        for k in range(start, len(self.source_lines)):
            text = self.source_lines[k]
            depth += sum(1 for m in opens.finditer(text) if not m.group(1))
            depth -= len(closes.findall(text))
            if depth <= 0:
                return max(k + 1, end)
        self._warn(f"<{tag}> is never closed", start + self.first_line)
        return end

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
        if (
            images
            and not _RICH_FRAGMENT.search(fragment)
            and not html.unescape(_TAG.sub("", without_caption)).strip()
        ):
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
                self._caption_formulas(caption, line)
                self._figure(markup, height, caption, line)
                return
        self._caption_formulas(caption, line)
        self._figure(fragment, height, caption, line)

    def _comment(self, content: str, line: int) -> None:
        """Act on a directive comment: break, label, embed; ignore the rest."""
        body = content[4:]
        body = body[: body.find("-->")] if "-->" in body else body
        body = body.strip()
        if body == "break":
            self._flush()
        elif match := re.fullmatch(r"label\s*:\s*(.+)", body, re.DOTALL):
            self.pending_label = match.group(1).strip()
        elif match := re.fullmatch(r"embed\s*:\s*(\S+)", body):
            url = match.group(1)
            parts = urlsplit(url)
            if parts.scheme.lower() in ("http", "https") and parts.netloc:
                self._emit("embed", url, line)
            else:
                self._warn(f"embed not imported: {url!r} is not an http(s) URL", line)


def _height(tag: str | None) -> int:
    """Return the pixel height an HTML start tag asks for, or the default."""
    if not tag:
        return DEFAULT_FIGURE_HEIGHT
    match = re.search(r"""\bheight\s*=\s*["']?(\d+)""", tag, re.I)
    return int(match.group(1)) if match else DEFAULT_FIGURE_HEIGHT
