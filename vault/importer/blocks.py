"""A Markdown body to StreamField blocks, following docs/markdown-format.md.

`parse_body` walks markdown-it's token stream (the plugins the site renders
with, plus raw HTML so figures and directives are seen) and returns raw block
values in Wagtail's JSON shape, with what needs the database left as
placeholders: images (`ImageSlot`) and links to other files (markers, see
`inline.LinkRef`). Every formula is listed with its line, so bad LaTeX is
reported as ``file:line``. No database here; the files a post refers to are
read through an `AssetFinder`.
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin

from rendering import (
    LANGUAGES,
    find_inline_math,
    normalise_language,
    parse_line_spec,
)
from rendering.markdown import (
    CALLOUT_TYPES,
    math_plugin,
)

from .assets import AssetFinder, local_part
from .inline import (
    INTRO_FEATURES,
    Collector,
    DisplayMath,
    ImageRef,
    InlineConverter,
    LinkRef,
    escape_text,
    html_attrs,
    plain_to_markdown,
)
from .links import WIKILINK, is_external, is_markdown_target, parse_wikilink
from .report import Issue

LANGUAGE_NAMES = frozenset(alias for alias, _ in LANGUAGES)
MATH_BLOCKS = frozenset({"math_block", "amsmath"})
DEFAULT_FIGURE_HEIGHT = 420
FIGURE_HEIGHTS = (80, 4000)  # HtmlFigureBlock's limits

_CALLOUT = re.compile(r"\s*\[!([A-Za-z][\w-]*)\]([-+]?)[ \t]*")
_CAPTION = re.compile(r"Table[:：]\s*\S", re.IGNORECASE)
_CAPTION_PREFIX = re.compile(r"^Table[:：]\s*", re.IGNORECASE)
_SOURCE_DASH = re.compile(r"^(?:—{1,2}|―{1,2}|–|--)\s*(\S.*)$")
_REGION_START = re.compile(r"<!--\s*block:([\w-]+)(.*?)-->\s*", re.DOTALL)
_REGION_END = re.compile(r"\s*<!--\s*/block\s*-->\s*")
_FIRST_TAG = re.compile(r"\s*<([A-Za-z][\w-]*)")
_TAG = re.compile(r"<[^>]*>")
_FIGCAPTION = re.compile(r"<figcaption[^>]*>(.*?)</figcaption>", re.DOTALL | re.I)
_RICH_FRAGMENT = re.compile(
    r"<(iframe|svg|script|canvas|video|audio|object|embed|table|math|form)\b", re.I
)
_IMG_TAG = re.compile(r"<img\b[^>]*>", re.I)
_IFRAME_TAG = re.compile(r"<iframe\b[^>]*>", re.I)
_EDGE_BREAKS = re.compile(r"^(?:\s|<br/>)+|(?:\s|<br/>)+$")
_FENCE_TITLE = re.compile(
    r"""\b(?:title|filename|file)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))"""
)
_FENCE_LINES = re.compile(r"\{([\d,\s-]+)\}")
_FENCE_HL = re.compile(r"""\bhl_lines\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_FENCE_NOLINENOS = re.compile(
    r"\bnolinenos\b|\b(?:linenos|showLineNumbers|numberLines)\s*=\s*(?:false|0)\b",
    re.I,
)
_MD_LINK = re.compile(
    r"(?<!!)\[((?:\\.|[^\[\]\n])*)\]\(\s*<?([^()\s<>]+)>?"
    r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)"""
)
_FENCE_LINE = re.compile(r"\s{0,3}(```|~~~)")


def _build() -> MarkdownIt:
    """Return a parser with the site's plugins, raw HTML on (figures, comments)."""
    md = MarkdownIt(
        "commonmark", {"html": True, "linkify": False, "typographer": False}
    )
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(math_plugin)
    return md


MD = _build()

# A dollar sign the source escaped (``\\$``, not ``\\\\$``), and what stands for it
# while parsing: markdown-it would unescape it, and the difference between a
# literal `\\$` and a bare `$` that opens no formula must survive into rich text.
_ESCAPED_DOLLAR = re.compile(r"(?<!\\)((?:\\\\)*)\\\$")
_DOLLAR_MARK = "\ue002"


def parse_markdown(text: str, env: dict | None = None) -> list[Token]:
    """Parse ``text``; an escaped dollar comes back as ``\\$`` in every token."""
    protected = _ESCAPED_DOLLAR.sub(lambda m: m.group(1) + _DOLLAR_MARK, text)
    tokens = MD.parse(protected, {} if env is None else env)
    for token in _walk_children(tokens):
        if _DOLLAR_MARK in token.content:
            token.content = token.content.replace(_DOLLAR_MARK, "\\$")
        if _DOLLAR_MARK in token.info:
            token.info = token.info.replace(_DOLLAR_MARK, "\\$")
        for name, value in (token.attrs or {}).items():
            if isinstance(value, str) and _DOLLAR_MARK in value:
                token.attrs[name] = value.replace(_DOLLAR_MARK, "\\$")
    return tokens


@dataclass
class Block:
    """One raw StreamField child: ``{"type": type, "value": value}``, and its line."""

    type: str
    value: Any
    line: int


@dataclass(frozen=True)
class ImageSlot:
    """Stands for `ParsedBody.images[index]` in a block value until it is saved."""

    index: int


@dataclass
class LocalImage:
    """An image file a post shows."""

    path: Path
    alt: str
    caption: str
    line: int


@dataclass
class Formula:
    """One formula of the source, to check with KaTeX."""

    tex: str
    display: bool
    line: int


@dataclass
class ParsedBody:
    """What a Markdown body becomes: blocks, and what they refer to."""

    blocks: list[Block] = field(default_factory=list)
    formulas: list[Formula] = field(default_factory=list)
    links: list[LinkRef] = field(default_factory=list)
    images: list[LocalImage] = field(default_factory=list)
    assets: set[Path] = field(default_factory=set)
    warnings: list[Issue] = field(default_factory=list)
    errors: list[Issue] = field(default_factory=list)
    # The first `# H1`, when it gave the title (there was none in front matter).
    h1: str | None = None
    # Rich text, for a series intro.
    html: str = ""


@dataclass
class _Region:
    """A `<!-- block:TYPE … -->…<!-- /block -->` region, kept verbatim."""

    type: str
    attrs: dict[str, str]
    content: str
    start: int  # 0-based line of the opening comment


def parse_body(
    text: str,
    *,
    first_line: int = 1,
    title: str | None = None,
    base_dir: Path | None = None,
    finder: AssetFinder | None = None,
) -> ParsedBody:
    """Return the blocks of a post body.

    ``first_line`` is the file line the body starts on (after front matter).
    A first ``# H1`` equal to ``title`` is dropped; with ``title`` None the
    first H1 becomes `ParsedBody.h1` instead.
    """
    return _BodyParser(text, first_line, title, base_dir, finder).parse()


def parse_intro(
    text: str,
    *,
    first_line: int = 1,
    title: str | None = None,
    base_dir: Path | None = None,
    finder: AssetFinder | None = None,
) -> ParsedBody:
    """Return a series intro (its `index.md` body) as rich text in `ParsedBody.html`.

    The intro allows bold, italic, code and links; headings become bold lines,
    list items lines, and other blocks are dropped with a warning.
    """
    return _BodyParser(text, first_line, title, base_dir, finder, intro=True).parse()


def split_nodes(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split a flat token list into its top-level nodes (an open…close run each)."""
    nodes: list[list[Token]] = []
    i = 0
    while i < len(tokens):
        if tokens[i].nesting != 1:
            nodes.append([tokens[i]])
            i += 1
            continue
        depth, j = 0, i
        while j < len(tokens):
            depth += tokens[j].nesting
            if depth == 0:
                break
            j += 1
        nodes.append(list(tokens[i : j + 1]))
        i = j + 1
    return nodes


def _walk_children(node: Sequence[Token]) -> Iterator[Token]:
    for token in node:
        yield token
        yield from token.children or ()


def _same_title(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


class _BodyParser:
    """One pass over a document's tokens, emitting blocks in order."""

    def __init__(
        self,
        text: str,
        first_line: int,
        title: str | None,
        base_dir: Path | None,
        finder: AssetFinder | None,
        *,
        intro: bool = False,
    ) -> None:
        self.first_line = first_line
        self.title = title
        self.base = base_dir or Path()
        self.finder = finder
        self.intro = intro
        self.result = ParsedBody()
        self.collector = Collector(
            links=self.result.links, warnings=self.result.warnings
        )
        self.inline = InlineConverter(
            self.collector, **({"features": INTRO_FEATURES} if intro else {})
        )
        self.source_lines = text.split("\n")
        self.regions: dict[int, _Region] = {}
        self.env: dict = {}  # markdown-it's, for the footnotes it saw
        self.tokens = self._parse_with_regions(text)
        self.footnotes: dict[str, tuple[int, int]] = {}
        self.prose: list[str] = []
        self.prose_line = first_line
        self.pending_label = ""
        self.h1_seen = False

    # Driver ----------------------------------------------------------------

    def parse(self) -> ParsedBody:
        self._collect_formulas(self.tokens, self.first_line)
        self._collect_footnotes()
        nodes = split_nodes(self.tokens)
        i = 0
        while i < len(nodes):
            i = self._node(nodes, i)
        self._flush()
        # markdown-it drops definitions nothing refers to; say so.
        refs = self.env.get("footnotes", {}).get("refs", {})
        for key, used in refs.items():
            if used == -1:
                label = key.removeprefix(":")
                line = next(
                    (
                        n + self.first_line
                        for n, text in enumerate(self.source_lines)
                        if text.lstrip().startswith(f"[^{label}]:")
                    ),
                    None,
                )
                self._warn(f"footnote [^{label}] is never referenced; dropped", line)
        if self.intro:
            self.result.html = "".join(
                block.value for block in self.result.blocks if block.type == "paragraph"
            )
            self.result.blocks = []
        return self.result

    def _node(self, nodes: list[list[Token]], i: int) -> int:
        """Convert ``nodes[i]``; return the index of the next node to convert."""
        node = nodes[i]
        kind = node[0].type
        label, self.pending_label = self.pending_label, ""
        previous = nodes[i - 1][0].type if i else ""
        if kind == "heading_open":
            self._heading(node)
        elif kind == "paragraph_open":
            self._paragraph(node, previous)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self._list(node)
        elif kind == "blockquote_open":
            self._blockquote(node)
        elif kind == "table_open":
            self._table(node)
        elif kind == "fence":
            self._fence(node[0], label)
        elif kind == "code_block":
            self._code(node[0].content, "text", "", "", True, self._line(node[0]))
        elif kind in MATH_BLOCKS:
            self._math(node[0].content, label, self._line(node[0]))
        elif kind == "html_block":
            return self._html(nodes, i)
        elif kind == "hr":
            self._flush()
        return i + 1

    def _line(self, token: Token) -> int:
        return token.map[0] + self.first_line if token.map else self.first_line

    def _warn(self, message: str, line: int | None) -> None:
        self.result.warnings.append(Issue(message, line))

    def _emit(self, type_: str, value: Any, line: int) -> None:
        if self.intro:
            self._warn(f"a series intro cannot hold a {type_} block; dropped", line)
            return
        self._flush()
        self.result.blocks.append(Block(type_, value, line))

    def _add_prose(self, markup: str, line: int) -> None:
        if not self.prose:
            self.prose_line = line
        self.prose.append(markup)

    def _flush(self) -> None:
        """End the current paragraph block (consecutive prose is one block)."""
        if self.prose:
            self.result.blocks.append(
                Block("paragraph", "".join(self.prose), self.prose_line)
            )
            self.prose = []

    # Pre-passes ------------------------------------------------------------

    def _parse_with_regions(self, text: str) -> list[Token]:
        """Parse ``text``, first blanking the inside of block regions.

        A region's content is kept verbatim, so it must not be parsed with the
        rest (an unclosed fence inside would swallow the document). Regions are
        found one at a time by parsing, so a region comment inside a code fence
        is never taken for one.
        """
        lines = list(self.source_lines)
        while True:
            self.env = {}
            tokens = parse_markdown("\n".join(lines), self.env)
            found = None
            for token in tokens:
                if token.type != "html_block" or token.level or not token.map:
                    continue
                match = _REGION_START.fullmatch(token.content.strip() + "\n")
                if match and token.map[0] not in self.regions:
                    found = (token.map[0], match)
                    break
            if found is None:
                return tokens
            start, match = found
            end = next(
                (
                    k
                    for k in range(start + 1, len(lines))
                    if _REGION_END.fullmatch(lines[k])
                ),
                None,
            )
            if end is None:
                self.result.errors.append(
                    Issue(
                        f"<!-- block:{match.group(1)} --> is never closed by <!-- /block -->",
                        start + self.first_line,
                    )
                )
                end = len(lines)
            content = "\n".join(self.source_lines[start + 1 : end])
            self.regions[start] = _Region(
                match.group(1).lower(), html_attrs(match.group(2)), content, start
            )
            for k in range(start + 1, min(end + 1, len(lines))):
                lines[k] = ""

    def _collect_formulas(self, tokens: Sequence[Token], first_line: int) -> None:
        """List every formula in ``tokens`` with the file line it is on."""
        formulas = self.result.formulas
        for token in tokens:
            line = token.map[0] + first_line if token.map else first_line
            is_math_fence = (
                token.type == "fence" and _fence_language(token.info).lower() == "math"
            )
            if token.type in MATH_BLOCKS or is_math_fence:
                formulas.append(Formula(token.content, True, line))
            elif token.type == "inline":
                for child in token.children or ():
                    if child.type == "math_inline":
                        formulas.append(Formula(child.content, False, line))
                    elif child.type == "math_inline_double":
                        formulas.append(Formula(child.content, True, line))
                    line += child.content.count("\n")
                    if child.type in ("softbreak", "hardbreak"):
                        line += 1

    def _collect_footnotes(self) -> None:
        """Map each footnote label to the source lines of its definition."""
        label = None
        start = end = 0
        for token in self.tokens:
            if token.type == "footnote_open":
                label, start, end = token.meta.get("label"), 10**9, -1
            elif token.type == "footnote_close" and label is not None:
                if end >= 0:
                    self.footnotes[label] = (start, end)
                label = None
            elif label is not None and token.map:
                start, end = min(start, token.map[0]), max(end, token.map[1])

    # Prose -------------------------------------------------------------------

    def _heading(self, node: list[Token]) -> None:
        level = int(node[0].tag[1])
        text = self.inline.text(node[1].children or [], node[1].content)
        line = self._line(node[0])
        if level == 1 and not self.h1_seen:
            self.h1_seen = True
            if self.title is None:
                self.result.h1 = text
                return
            if _same_title(text, self.title):
                return
        if not text:
            return
        if self.intro:
            self._add_prose(f"<p><b>{html.escape(text, quote=False)}</b></p>", line)
            return
        if len(text) > 255:
            self._warn("heading longer than 255 characters; shortened", line)
        tag = "h2" if level <= 2 else "h3" if level == 3 else "h4"
        self._emit("heading", {"text": text[:255], "level": tag}, line)

    def _paragraph(self, node: list[Token], previous: str) -> None:
        inline = node[1]
        children = inline.children or []
        line = self._line(node[0])
        last = self.result.blocks[-1] if self.result.blocks else None
        if (
            previous == "table_open"
            and last is not None
            and last.type == "table"
            and _CAPTION.match(inline.content)
            and "\n" not in inline.content.strip()
        ):
            caption = _CAPTION_PREFIX.sub(
                "", self.inline.text(children, inline.content)
            )
            last.value["table_caption"] = caption
            return
        if self._footnote_labels(node):
            self._markdown(node)
            return
        self._pieces(self.inline.pieces(children, line, inline.content), line)

    def _pieces(self, pieces: list, line: int) -> None:
        """Add a paragraph's pieces: HTML runs as prose, images and math as blocks."""
        run: list[str] = []
        for piece in pieces:
            if isinstance(piece, str):
                run.append(piece)
                continue
            self._prose_paragraph(run, line)
            run = []
            if isinstance(piece, DisplayMath):
                if self.intro:
                    self._add_prose(
                        f"<p>{html.escape(f'${piece.tex.strip()}$', quote=False)}</p>",
                        piece.line,
                    )
                else:
                    self._math(piece.tex, "", piece.line)
            else:
                self._image(piece)
        self._prose_paragraph(run, line)

    def _prose_paragraph(self, run: list[str], line: int) -> None:
        markup = _EDGE_BREAKS.sub("", "".join(run))
        if markup:
            self._add_prose(f"<p>{markup}</p>", line)

    def _list(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node):
            self._markdown(node)
            return
        if self.intro:
            for token in node:
                if token.type == "inline":
                    pieces = self.inline.pieces(
                        token.children or [], self._line(token), token.content
                    )
                    self._pieces(pieces, line)
            return
        converted = self._list_html(node)
        if converted is None or any(isinstance(p, DisplayMath) for p in converted[1]):
            self._markdown(node)
            return
        markup, images = converted
        self._add_prose(markup, line)
        for image in images:
            self._warn("an image inside a list is placed after the list", image.line)
            self._image(image)

    def _list_html(self, node: list[Token]) -> tuple[str, list] | None:
        """Return a list as rich-text HTML and the images it held, or None.

        None means the list holds blocks rich text cannot (code, tables…).
        """
        out: list[str] = []
        extras: list = []
        paragraphs: list[int] = []  # paragraphs seen in each open <li>
        tags = {
            "bullet_list_open": "<ul>",
            "bullet_list_close": "</ul>",
            "ordered_list_open": "<ol>",
            "ordered_list_close": "</ol>",
        }
        for token in node:
            kind = token.type
            if kind in tags:
                out.append(tags[kind])
            elif kind == "list_item_open":
                out.append("<li>")
                paragraphs.append(0)
            elif kind == "list_item_close":
                out.append("</li>")
                paragraphs.pop()
            elif kind == "paragraph_open":
                if paragraphs and paragraphs[-1]:
                    out.append("<br/>")
                if paragraphs:
                    paragraphs[-1] += 1
            elif kind == "paragraph_close":
                continue
            elif kind == "inline":
                for piece in self.inline.pieces(
                    token.children or [], self._line(token), token.content
                ):
                    (out if isinstance(piece, str) else extras).append(piece)
            else:
                return None
        return "".join(out), extras

    def _rich_body(self, items: list) -> tuple[str, list[ImageRef]] | None:
        """Return the rich text of a callout or quote body, or None if it cannot be.

        ``items`` are (children, line, source) for paragraphs, and nodes.
        """
        parts: list[str] = []
        images: list[ImageRef] = []
        for item in items:
            if isinstance(item, tuple):
                children, line, raw = item
                pieces = self.inline.pieces(children, line, raw)
                if any(isinstance(p, DisplayMath) for p in pieces):
                    return None
                images.extend(p for p in pieces if isinstance(p, ImageRef))
                markup = _EDGE_BREAKS.sub(
                    "", "".join(p for p in pieces if isinstance(p, str))
                )
                if markup:
                    parts.append(f"<p>{markup}</p>")
                continue
            kind = item[0].type
            if kind == "paragraph_open":
                pieces = self.inline.pieces(
                    item[1].children or [], self._line(item[0]), item[1].content
                )
                if any(isinstance(p, DisplayMath) for p in pieces):
                    return None
                images.extend(p for p in pieces if isinstance(p, ImageRef))
                markup = _EDGE_BREAKS.sub(
                    "", "".join(p for p in pieces if isinstance(p, str))
                )
                if markup:
                    parts.append(f"<p>{markup}</p>")
            elif kind in ("bullet_list_open", "ordered_list_open"):
                converted = self._list_html(item)
                if converted is None or any(
                    isinstance(p, DisplayMath) for p in converted[1]
                ):
                    return None
                parts.append(converted[0])
                images.extend(converted[1])
            else:
                return None
        return "".join(parts), images

    # Quotes and callouts -----------------------------------------------------

    def _blockquote(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self.intro:
            self._warn("a series intro cannot hold a quote; dropped", line)
            return
        if self._footnote_labels(node):
            self._markdown(node)
            return
        inner = split_nodes(node[1:-1])
        first = inner[0] if inner else []
        marker = None
        if first and first[0].type == "paragraph_open":
            marker = _CALLOUT.match(first[1].content)
        if marker is not None:
            self._callout(node, inner, marker, line)
        else:
            self._quote(node, inner, line)

    def _callout(self, node, inner, marker: re.Match, line: int) -> None:
        written = marker.group(1).lower()
        kind = CALLOUT_TYPES.get(written)
        if kind is None:
            self._warn(
                f"unknown callout type [!{marker.group(1)}]; imported as a note", line
            )
            kind = "note"
        raw = inner[0][1].content
        children = list(inner[0][1].children or [])
        split = next(
            (k for k, c in enumerate(children) if c.type in ("softbreak", "hardbreak")),
            len(children),
        )
        title_children, body_children = children[:split], children[split + 1 :]
        if title_children and title_children[0].type == "text":
            head = copy.copy(title_children[0])
            head.content = _CALLOUT.sub("", head.content, count=1)
            title_children[0] = head
        title = self.inline.text(title_children, raw)
        items: list = []
        if body_children:
            items.append((body_children, line + 1, raw))
        items.extend(inner[1:])
        body = self._rich_body(items)
        if body is None:
            self._markdown(node)
            return
        markup, images = body
        if not markup:
            if not title:
                self._warn("empty callout; dropped", line)
                return
            # A one-line callout: its text is the body, under the kind's label.
            one_line = self._rich_body([(title_children, line, raw)])
            markup, title = (one_line[0] if one_line else ""), ""
        self._emit(
            "callout", {"kind": kind, "title": title[:255], "body": markup}, line
        )
        self._hoisted(images, "callout")

    def _quote(self, node, inner, line: int) -> None:
        items: list = list(inner)
        source = ""
        last = items[-1] if items else None
        if last is not None and last[0].type == "paragraph_open":
            children = list(last[1].children or [])
            breaks = [
                k
                for k, c in enumerate(children)
                if c.type in ("softbreak", "hardbreak")
            ]
            cut = breaks[-1] + 1 if breaks else 0
            raw = last[1].content
            match = _SOURCE_DASH.match(self.inline.text(children[cut:], raw))
            if match:
                source = match.group(1).strip()
                kept = children[: breaks[-1]] if breaks else []
                items[-1] = (kept, self._line(last[0]), raw)
        body = self._rich_body(items)
        if body is None:
            self._markdown(node)
            return
        markup, images = body
        if not markup:
            self._warn("empty quote; dropped", line)
            return
        self._emit("quote", {"quote": markup, "source": source[:255]}, line)
        self._hoisted(images, "quote")

    def _hoisted(self, images: list[ImageRef], where: str) -> None:
        for image in images:
            self._warn(f"an image inside a {where} is placed after it", image.line)
            self._image(image)

    # Other blocks ---------------------------------------------------------

    def _table(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node):
            self._markdown(node)
            return
        rows: list[list[str]] = []
        row: list[str] | None = None
        for token in node:
            if token.type == "tr_open":
                row = []
            elif token.type == "tr_close" and row is not None:
                rows.append(row)
                row = None
            elif token.type == "inline" and row is not None:
                row.append(self.inline.text(token.children or [], token.content))
        width = max((len(r) for r in rows), default=0)
        data = [r + [""] * (width - len(r)) for r in rows]
        value = {
            "table_caption": "",
            "table_header_choice": "row",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": data,
        }
        self._emit("table", value, line)

    def _fence(self, token: Token, label: str) -> None:
        info = token.info.strip()
        line = self._line(token)
        written = _fence_language(info)
        if written.lower() == "math":
            self._math(token.content, label, line)
            return
        language = normalise_language(written)
        if language not in LANGUAGE_NAMES:
            if written:
                self._warn(
                    f"code language {written!r} is not offered; imported as text", line
                )
            language = "text"
        title = _first_group(_FENCE_TITLE.search(info))
        spec = ""
        if match := _FENCE_LINES.search(info):
            spec = match.group(1)
        elif match := _FENCE_HL.search(info):
            spec = ",".join(_first_group(match).split())
        line_numbers = _FENCE_NOLINENOS.search(info) is None
        self._code(token.content, language, title, spec, line_numbers, line)

    def _code(
        self,
        source: str,
        language: str,
        title: str,
        spec: str,
        numbers: bool,
        line: int,
    ) -> None:
        code = source[:-1] if source.endswith("\n") else source
        if not code.strip():
            return
        spec = ",".join(part.strip() for part in spec.split(",") if part.strip())
        if spec:
            count = code.count("\n") + 1
            try:
                wanted = parse_line_spec(spec)
            except ValueError as error:
                self._warn(f"highlighted lines {{{spec}}} ignored: {error}", line)
                spec = ""
            else:
                if any(n > count for n in wanted):
                    self._warn(
                        f"highlighted lines {{{spec}}} ignored: the code has {count} lines",
                        line,
                    )
                    spec = ""
        self._emit(
            "code",
            {
                "language": language,
                "filename": title[:255],
                "code": code,
                "highlight_lines": spec,
                "line_numbers": numbers,
            },
            line,
        )

    def _math(self, tex: str, label: str, line: int) -> None:
        tex = tex.strip()
        if not tex:
            return
        if self.intro:
            self._add_prose(f"<p>{html.escape(f'${tex}$', quote=False)}</p>", line)
            return
        self._emit("math", {"tex": tex, "label": label[:32]}, line)

    def _image(self, ref: ImageRef) -> None:
        src = ref.src.strip()
        if self.intro:
            self._warn("a series intro cannot hold an image; dropped", ref.line)
            return
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
        path = self.finder.find(src, self.base) if self.finder else None
        if path is None:
            self._warn(f"missing image: {local_part(src) or src}", ref.line)
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
        images = _IMG_TAG.findall(fragment)
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
                path = self.finder.find(src, self.base) if self.finder else None
                if path is None:
                    self._warn(f"missing figure file: {local_part(src)}", line)
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
            self._emit("embed", match.group(1), line)

    def _region(self, region: _Region, line: int) -> None:
        """Emit a `<!-- block:TYPE -->` region through the reader of its block type."""
        reader = REGION_READERS.get(region.type)
        if reader is None:
            self._warn(f"unknown block type {region.type!r}; kept as Markdown", line)
            reader = REGION_READERS["markdown"]
        reader(self, region, line)

    def _html_figure_region(self, region: _Region, line: int) -> None:
        try:
            height = int(region.attrs.get("height", DEFAULT_FIGURE_HEIGHT))
        except ValueError:
            height = DEFAULT_FIGURE_HEIGHT
        caption = region.attrs.get("caption", "")
        self._caption_formulas(caption, line)
        self._figure(region.content, height, caption, line)

    def _markdown_region(self, region: _Region, line: int) -> None:
        if not region.content.strip():
            return
        tokens = parse_markdown(region.content)
        self._collect_formulas(tokens, line + 1)
        # Verbatim: the lines between the comments, so a value round-trips exactly.
        self._emit("markdown", region.content, line)

    # Markdown fallback -----------------------------------------------------

    def _footnote_labels(self, node: Sequence[Token]) -> list[str]:
        labels: list[str] = []
        for token in _walk_children(node):
            if token.type == "footnote_ref":
                label = token.meta.get("label")
                if label not in labels:
                    labels.append(label)
        return labels

    def _markdown(self, node: list[Token]) -> None:
        """Keep a node as a Markdown block: footnotes, or what rich text cannot say.

        The block holds the node's source and the definitions of the footnotes it
        references, so each note stays with its reference.
        """
        line = self._line(node[0])
        if self.intro:
            self._warn("a series intro cannot hold this; dropped", line)
            return
        start, end = node[0].map or (0, 0)
        parts = ["\n".join(self.source_lines[start:end]).strip("\n")]
        for label in self._footnote_labels(node):
            if label in self.footnotes:
                first, last = self.footnotes[label]
                parts.append("\n".join(self.source_lines[first:last]).strip("\n"))
            else:
                self._warn(f"footnote [^{label}] has no definition", line)
        for token in _walk_children(node):
            if token.type == "image" or (
                token.type in ("html_inline", "html_block")
                and _IMG_TAG.search(token.content)
            ):
                self._warn("an image inside a Markdown block is not imported", line)
        self._emit("markdown", self._markdown_links("\n\n".join(parts), line), line)

    def _markdown_links(self, source: str, line: int) -> str:
        """Replace links to other files in Markdown source with link markers."""
        out = []
        in_fence = False
        for offset, text in enumerate(source.split("\n")):
            if _FENCE_LINE.match(text):
                in_fence = not in_fence
            if not in_fence:
                text = _MD_LINK.sub(
                    lambda m, at=line + offset: self._md_link(m, at), text
                )
                text = WIKILINK.sub(lambda m, at=line + offset: self._wiki(m, at), text)
            out.append(text)
        return "\n".join(out)

    def _md_link(self, match: re.Match, line: int) -> str:
        if not is_markdown_target(match.group(2)):
            return match.group(0)
        label = match.group(1)
        ref = LinkRef(
            match.group(2), False, escape_text(label), label, line, markdown=True
        )
        return self.collector.link(ref)

    def _wiki(self, match: re.Match, line: int) -> str:
        wiki = parse_wikilink(match.group(2))
        if match.group(1) or not wiki.target:
            return match.group(0)
        label = plain_to_markdown(wiki.label)
        ref = LinkRef(
            wiki.target, True, escape_text(wiki.label), label, line, markdown=True
        )
        return self.collector.link(ref)


# The reader of each `<!-- block:TYPE -->` region, by block name: the way back
# from the verbatim form vault.exporter writes. Other blocks are read from the
# Markdown syntax they are written in (headings, fences, $$, tables, > [!NOTE]).
REGION_READERS: dict[str, Callable[[_BodyParser, _Region, int], None]] = {
    "html_figure": _BodyParser._html_figure_region,
    "markdown": _BodyParser._markdown_region,
}


def _fence_language(info: str) -> str:
    """Return the first word of a fence info string (``cuda{2}`` gives ``cuda``)."""
    word = re.split(r"[\s{]", info.strip(), maxsplit=1)[0]
    return word.split(":", 1)[0] if ":" in word and not word.startswith("{") else word


def _first_group(match: re.Match | None) -> str:
    if match is None:
        return ""
    return next((g for g in match.groups() if g is not None), "")


def _height(tag: str | None) -> int:
    """Return the pixel height an HTML start tag asks for, or the default."""
    if not tag:
        return DEFAULT_FIGURE_HEIGHT
    match = re.search(r"""\bheight\s*=\s*["']?(\d+)""", tag, re.I)
    return int(match.group(1)) if match else DEFAULT_FIGURE_HEIGHT
