"""Inline Markdown (markdown-it tokens) to Wagtail rich text or to plain text.

Rich text is Wagtail's database format (`<b>`, `<i>`, `<code>`, `<a href>`, `<s>`,
`<sup>`, `<sub>`, `<br/>`); internal links are left as markers that the importer
replaces once every page exists (see `LinkRef`). Inline math stays literal
`$…$` / `\\(…\\)` text, which the paragraph block typesets on the server. A dollar
sign is kept as the source wrote it: `\\$` (the parser hands it over escaped, see
`tokens.parse_markdown`) or a bare `$` that opens no formula.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from markdown_it.token import Token

from .links import (
    WIKILINK,
    is_external,
    is_markdown_target,
    parse_wikilink,
    split_target,
)
from .report import Issue

# Element names an inline HTML tag may map to, by the name authors write.
_INLINE_TAGS = {
    "b": "b",
    "strong": "b",
    "i": "i",
    "em": "i",
    "s": "s",
    "del": "s",
    "strike": "s",
    "mark": "mark",
    "code": "code",
    "sup": "sup",
    "sub": "sub",
}
RICH_FEATURES = frozenset({"b", "i", "code", "a", "s", "mark", "sup", "sub", "br"})

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)\b([^>]*?)(/?)>", re.DOTALL)
_ATTR = re.compile(
    r"""([A-Za-z_:][-\w:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))"""
)
# The size of an Obsidian embed: ``![[x.png|300]]``, ``![[x.png|300x200]]``.
IMAGE_SIZE = re.compile(r"(\d+)(?:x\d+)?")
# An attribute list's width in CSS pixels: ``300`` or ``300px`` (not ``50%``).
_PIXELS = re.compile(r"\s*(\d+)\s*(?:px)?\s*", re.IGNORECASE)
# The image block's bounds on a display width (blog.blocks.media.ImageBlock).
MIN_WIDTH, MAX_WIDTH = 16, 4000
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif", ".bmp")
# A file name with an extension other than Markdown's: an attachment, not a note.
_ATTACHMENT = re.compile(r".*\.(?!md$)[A-Za-z0-9]{1,5}", re.IGNORECASE)


def _bounded(digits: str) -> int:
    return max(MIN_WIDTH, min(MAX_WIDTH, int(digits[:6])))


def embed_width(size: str) -> int | None:
    """Return the width of Obsidian's ``|300`` or ``|300x200`` (the height follows)."""
    match = IMAGE_SIZE.fullmatch(size)
    return _bounded(match.group(1)) if match else None


def attr_width(value: str | None) -> int | None:
    """Return the width of ``{ width="300" }`` or ``300px``; None for other units."""
    match = _PIXELS.fullmatch(value or "")
    return _bounded(match.group(1)) if match else None


def is_note_target(target: str) -> bool:
    """Whether ``![[target]]`` embeds a note (not an image or another file)."""
    return bool(target) and not _ATTACHMENT.fullmatch(target.strip())


LINK_OPEN, LINK_CLOSE = "\ue000", "\ue001"
# Stands for `Collector.attachments[index]` in rich text until its document is saved.
ATTACHMENT_MARKER = re.compile("\ue005(\\d+)\ue006")
LINK_MARKER = re.compile("\ue000(\\d+)\ue001")


@dataclass
class LinkRef:
    """A link to another file of the vault, resolved after every page exists."""

    url: str  # the href of a Markdown link, or the target of a wikilink
    wiki: bool
    label_html: str  # what the link wraps, as rich text
    label_text: str  # the same as plain text, for Markdown blocks
    line: int
    markdown: bool = False  # the marker sits in Markdown source, not rich text
    # An embed standing as its own paragraph (``![[note#heading]]``): a note
    # block of the page, or, when it cannot be one, a paragraph with the link.
    embed: bool = False


@dataclass
class ImageRef:
    """An image a post shows: a path or URL as written, with its alt and caption."""

    src: str
    alt: str
    caption: str
    line: int
    width: int | None = None  # the display width in CSS pixels, if written


@dataclass
class DisplayMath:
    """Display math (``$$…$$``) met inside a paragraph."""

    tex: str
    line: int


@dataclass
class Collector:
    """What converting one document finds besides its HTML."""

    links: list[LinkRef] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    attachments: list[AttachmentRef] = field(default_factory=list)

    def link(self, ref: LinkRef) -> str:
        """Store ``ref`` and return the marker that stands for it."""
        self.links.append(ref)
        return f"{LINK_OPEN}{len(self.links) - 1}{LINK_CLOSE}"

    def attachment(self, ref: AttachmentRef) -> str:
        """Store ``ref`` and return the marker that stands for its link."""
        self.attachments.append(ref)
        return f"\ue005{len(self.attachments) - 1}\ue006"


@dataclass
class AttachmentRef:
    """A link to a file of the vault that is neither a page nor an image.

    ``path`` is the file found (None: missing); the link becomes one to the
    Wagtail document of its content.
    """

    src: str
    label_html: str
    line: int
    path: Path | None = None


Piece = str | ImageRef | DisplayMath


def escape_text(text: str) -> str:
    """Return literal text as rich-text HTML."""
    return html.escape(text, quote=False)


def _code_as_text(code: str) -> str:
    """Return code for a plain-text field, where a bare ``$`` could open math."""
    return re.sub(r"(?<!\\)\$", r"\\$", code)


def _is_wikilink(match: re.Match, raw: str | None) -> bool:
    """Return True unless the source escaped the brackets (``[[x\\]\\]``)."""
    return raw is None or match.group(0) in raw


def math_source(token: Token) -> str:
    """Return an inline formula as it is written in a paragraph."""
    if token.markup == "\\(":
        return f"\\({token.content}\\)"
    return f"${token.content}$"


def html_attrs(tag: str) -> dict[str, str]:
    """Return the attributes of one HTML start tag, lowercased names."""
    return {
        match.group(1).lower(): html.unescape(
            next(g for g in match.groups()[1:] if g is not None)
        )
        for match in _ATTR.finditer(tag)
    }


class InlineConverter:
    """Turn the children of an ``inline`` token into rich text or plain text."""

    def __init__(
        self,
        collector: Collector,
        *,
        features: frozenset[str] = RICH_FEATURES,
        breaks: bool = False,
    ) -> None:
        self.collector = collector
        self.features = features
        self.breaks = breaks  # a soft break is a line break, as in Obsidian

    # Rich text -----------------------------------------------------------

    def pieces(
        self, children: Sequence[Token], line: int, raw: str | None = None
    ) -> list[Piece]:
        """Return rich-text HTML strings, with images and display math between.

        ``raw`` is the Markdown source of ``children``, to tell a wikilink from
        text that only looks like one.
        """
        out: list[Piece] = []
        # Each open link collects its own pieces; (href, pieces, line).
        links: list[tuple[str, list[Piece], int]] = []
        open_tags: list[str] = []

        def emit(piece: Piece) -> None:
            (links[-1][1] if links else out).append(piece)

        for token in children:
            kind = token.type
            if kind == "text":
                self._text(token.content, line, emit, in_link=bool(links), raw=raw)
            elif kind in ("softbreak", "hardbreak"):
                hard = kind == "hardbreak" or self.breaks
                if hard and "br" in self.features:
                    emit("<br/>")
                else:
                    emit("\n")
            elif kind == "code_inline":
                inner = html.escape(token.content, quote=False)
                emit(f"<code>{inner}</code>" if "code" in self.features else inner)
            elif kind in ("strong_open", "strong_close"):
                emit(self._tag("b", kind.endswith("open")))
            elif kind in ("em_open", "em_close"):
                emit(self._tag("i", kind.endswith("open")))
            elif kind in ("s_open", "s_close"):
                emit(self._tag("s", kind.endswith("open")))
            elif kind in ("mark_open", "mark_close"):
                emit(self._tag("mark", kind.endswith("open")))
            elif kind == "math_inline":
                emit(html.escape(math_source(token), quote=False))
            elif kind == "math_inline_double":
                emit(DisplayMath(token.content, line))
            elif kind == "image":
                emit(
                    ImageRef(
                        token.attrGet("src") or "",
                        # The label as written, but for its escaped brackets.
                        re.sub(r"\\([][])", r"\1", token.content),
                        token.attrGet("title") or "",
                        line,
                        attr_width(token.meta.get("width")),
                    )
                )
            elif kind == "link_open":
                links.append((token.attrGet("href") or "", [], line))
            elif kind == "link_close" and links:
                href, inner, start = links.pop()
                self._close_link(href, inner, start, emit)
            elif kind == "html_inline":
                self._html_inline(token.content, line, emit, open_tags)
            elif kind == "footnote_ref":
                emit(escape_text(f"[^{token.meta.get('label', '')}]"))
            line += token.content.count("\n")
            if kind in ("softbreak", "hardbreak"):
                line += 1
        while links:  # an unclosed link: keep what it wrapped
            href, inner, start = links.pop()
            self._close_link(href, inner, start, emit)
        for name in reversed(open_tags):
            out.append(f"</{name}>")
        return out

    def _tag(self, name: str, opening: bool) -> str:
        if name not in self.features:
            return ""
        return f"<{name}>" if opening else f"</{name}>"

    def _text(
        self, text: str, line: int, emit, *, in_link: bool, raw: str | None
    ) -> None:
        """Emit literal text, turning ``[[wikilinks]]`` and ``![[embeds]]`` into links."""
        pos = 0
        for match in WIKILINK.finditer(text):
            if not _is_wikilink(match, raw):
                continue
            emit(escape_text(text[pos : match.start()]))
            at = line + text.count("\n", 0, match.start())
            wiki = parse_wikilink(match.group(2))
            if match.group(1) and wiki.target.lower().endswith(IMAGE_SUFFIXES):
                width = embed_width(wiki.text)
                alt = "" if width else wiki.text
                emit(ImageRef(wiki.target, alt, "", at, width))
            elif in_link or not wiki.target or "a" not in self.features:
                emit(escape_text(wiki.label))
            elif is_attachment_target(wiki.target):
                # ![[talk.pdf]] or [[talk.pdf]]: found by name as Obsidian
                # finds it, linked as the document of its content.
                label = escape_text(wiki.label)
                emit(self.collector.attachment(AttachmentRef(wiki.target, label, at)))
            else:
                if match.group(1):
                    self.collector.warnings.append(
                        Issue(
                            f"embedded note ![[{wiki.target}]] imported as a link", at
                        )
                    )
                label = escape_text(wiki.label)
                emit(
                    self.collector.link(
                        LinkRef(wiki.target, True, label, wiki.label, at)
                    )
                )
            pos = match.end()
        emit(escape_text(text[pos:]))

    def _close_link(self, href: str, inner: list[Piece], line: int, emit) -> None:
        """Emit a finished link: internal ones as markers, others as ``<a href>``."""
        label = "".join(piece for piece in inner if isinstance(piece, str))
        if "a" not in self.features or not href:
            emit(label)
        elif is_markdown_target(href):
            text = _strip_tags(label)
            emit(self.collector.link(LinkRef(href, False, label, text, line)))
        elif is_attachment_target(href):
            emit(self.collector.attachment(AttachmentRef(href, label, line)))
        else:
            emit(f'<a href="{html.escape(href)}">{label}</a>')
        for piece in inner:
            if not isinstance(piece, str):
                emit(piece)

    def _html_inline(self, markup: str, line: int, emit, open_tags: list[str]) -> None:
        """Keep inline HTML that rich text can say (<sup>, <b>, <br>…); drop the rest."""
        match = _TAG.fullmatch(markup.strip())
        if match is None:
            return  # a comment or a declaration
        closing, name = match.group(1), match.group(2).lower()
        if name == "br":
            emit("<br/>" if "br" in self.features else "\n")
            return
        if name == "img" and not closing:
            attrs = html_attrs(markup)
            if attrs.get("src"):
                emit(
                    ImageRef(
                        attrs["src"], attrs.get("alt", ""), attrs.get("title", ""), line
                    )
                )
            return
        mapped = _INLINE_TAGS.get(name)
        if mapped is None or mapped not in self.features:
            return
        if not closing:
            open_tags.append(mapped)
            emit(f"<{mapped}>")
        elif open_tags and open_tags[-1] == mapped:
            open_tags.pop()
            emit(f"</{mapped}>")

    # Plain text ----------------------------------------------------------

    def text(self, children: Sequence[Token], raw: str | None = None) -> str:
        """Return ``children`` as plain text with inline math kept as ``$…$``."""
        parts = []
        for token in children:
            kind = token.type
            if kind == "text":
                parts.append(
                    WIKILINK.sub(
                        lambda m: (
                            parse_wikilink(m.group(2)).label
                            if _is_wikilink(m, raw)
                            else m.group(0)
                        ),
                        token.content,
                    )
                )
            elif kind in ("softbreak", "hardbreak"):
                parts.append(" ")
            elif kind == "code_inline":
                parts.append(_code_as_text(token.content))
            elif kind == "math_inline":
                parts.append(math_source(token))
            elif kind == "math_inline_double":
                parts.append(f"${token.content.strip()}$")
            elif kind == "image":
                parts.append(token.content)
            elif kind == "footnote_ref":
                # Plain text holds no footnote: a marker, the note shown elsewhere.
                parts.append(f"[{token.meta.get('label', '')}]")
        return "".join(parts).strip()


# Local links that are not attachments: pages of the old site, figures.
_NOT_ATTACHMENTS = (".md", ".html", ".htm", *IMAGE_SUFFIXES)


def is_attachment_target(url: str) -> bool:
    """Return True if ``url`` is a local link to a file (``cv.pdf``, ``talk.pptx``)."""
    url = url.strip()
    if not url or is_external(url) or url.startswith(("#", "/", "//")):
        return False
    path, _ = split_target(url)
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    return "." in name.strip(".") and not name.endswith(_NOT_ATTACHMENTS)


def _strip_tags(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def plain_to_markdown(text: str) -> str:
    """Return link text for Markdown source (brackets escaped)."""
    return text.replace("[", "\\[").replace("]", "\\]")
