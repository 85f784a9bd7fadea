"""Turn Wagtail rich text (and plain text with inline math) into Markdown prose.

Wagtail stores rich text as a small HTML subset: ``<p>``, ``<ul>``/``<ol>``/``<li>``
(a nested list sits inside its ``<li>``), ``<b>``, ``<i>``, ``<code>``, ``<s>``,
``<sup>``, ``<sub>``, ``<br/>``, ``<a href>`` and ``<a linktype="page|document"
id="N">``. Text keeps inline math as written (``$…$``, ``\\(…\\)``, ``\\$`` for a
literal dollar), so formulas are copied verbatim and everything else is escaped
just enough that a CommonMark parser with dollar math reads the same text back.

Pure functions: links to pages and documents are resolved by a `Resolver`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from html.parser import HTMLParser
from typing import Protocol

from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace

from rendering import find_inline_math
from rendering.shortcodes import emoji_for, is_icon


class Resolver(Protocol):
    """What a conversion needs from the site; each method may return None."""

    def page_href(self, page_id: int) -> str | None:
        """Return the link to a page: a relative ``.md`` path or a URL."""

    def document_href(self, document_id: int) -> str | None:
        """Return the URL of a document."""

    def image_src(self, image_id: int) -> str | None:
        """Return the relative path of an image's exported file."""

    def warn(self, message: str) -> None:
        """Report something the export could not carry over."""


@dataclass
class OfflineResolver:
    """Resolve nothing and collect warnings: for converting without a site."""

    pages: dict[int, str] = field(default_factory=dict)
    documents: dict[int, str] = field(default_factory=dict)
    images: dict[int, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def page_href(self, page_id: int) -> str | None:
        return self.pages.get(page_id)

    def document_href(self, document_id: int) -> str | None:
        return self.documents.get(document_id)

    def image_src(self, image_id: int) -> str | None:
        return self.images.get(image_id)

    def warn(self, message: str) -> None:
        self.warnings.append(message)


# --- Escaping text ---------------------------------------------------------

_ENTITY = re.compile(
    r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)
_TAG_START = re.compile(r"<[A-Za-z/!?]")
# Always escaped: code, the end of a link or footnote label (escaping "]" rather
# than "[" keeps "\[" free for display math), strikethrough.
_ALWAYS = frozenset("`]~")
_SPACE = " \t\u00a0"
_SPACE_OR_BREAK = " \t\u00a0\n"


def _plain_pairs(text: str) -> set[int]:
    """Return where the brackets of ``text`` that may stay as typed in link text are.

    A matched pair does not end the link text early, unless it could start a
    link, image, footnote or wiki link of its own.
    """
    plain: set[int] = set()
    opened: list[int] = []
    for i, char in enumerate(text):
        if char == "[":
            opened.append(i)
        elif char == "]" and opened:
            start = opened.pop()
            before = text[start - 1] if start else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            first = text[start + 1] if start + 1 < i else ""
            if before not in "![" and after not in "([:" and first not in "^[!":
                plain.update((start, i))
    return plain


def _escape_literal(text: str, *, link_text: bool = False) -> str:
    """Escape Markdown syntax in text that holds no formula.

    In ``link_text`` every "[" is escaped too, as "&#91;" ("\\[" could open
    display math), except matched pairs, kept as typed.
    """
    out = []
    plain = _plain_pairs(text) if link_text else set()
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < n else ""
        if i in plain:
            out.append(char)
        elif char == "[" and link_text:
            out.append("&#91;")
        elif char == "\\":
            if nxt == "$":
                # A literal dollar in rich text; Markdown spells it the same way.
                out.append("\\$")
                i += 2
                continue
            out.append("\\\\")
        elif char == "$":
            rest = text[i:]
            run = len(rest) - len(rest.lstrip("$"))
            # One $ that opened no formula stays as typed ("$5 or $10"); $$
            # would start display math in Markdown.
            out.append("$" if run == 1 else "\\$" * run)
            i += run
            continue
        elif char == "%" and nxt == "%":
            # "%%" would open an Obsidian comment, hiding what follows.
            out.append("\\%")
        elif char in _ALWAYS or (char == "^" and prev == "["):
            # "[^" would start a footnote reference.
            out.append("\\" + char)
        elif char == "*":
            # A star between spaces can neither open nor close emphasis.
            out.append(
                "*" if prev in _SPACE and prev and nxt in _SPACE and nxt else "\\*"
            )
        elif char == "_":
            # Inside a word (snake_case, 中_文) an underscore is never emphasis.
            out.append("_" if prev.isalnum() and nxt.isalnum() else "\\_")
        elif char == "<" and _TAG_START.match(text, i):
            out.append("\\<")
        elif char == "&" and _ENTITY.match(text, i):
            out.append("\\&")
        else:
            out.append(char)
        i += 1
    return "".join(out)


_SHORTCODE = re.compile(r"(?<![\\A-Za-z0-9:/]):([A-Za-z0-9_+\-]{1,64}):")


def _escape_shortcodes(markdown: str) -> str:
    """Escape ``:name:`` that the importer would read as an emoji or an icon."""
    return _SHORTCODE.sub(
        lambda m: (
            "\\" + m.group(0)
            if emoji_for(m.group(1)) or is_icon(m.group(1))
            else m.group(0)
        ),
        markdown,
    )


def escape_text(text: str, *, link_text: bool = False) -> str:
    """Return plain ``text`` as Markdown inline source that reads back the same.

    Formulas are copied verbatim: Markdown's dollar math reads their source as
    is. A ``$`` right after a digit opens no formula in Markdown, so such a
    formula is escaped as text instead (its ``$`` stay, the text comes back).
    ``link_text`` is text inside ``[…](url)``, where a lone "[" is escaped too.
    """
    escape = partial(_escape_literal, link_text=link_text)
    out = []
    pos = 0
    for formula in find_inline_math(text):
        out.append(
            _escape_equals(_escape_shortcodes(escape(text[pos : formula.start])))
        )
        source = text[formula.start : formula.end]
        if (
            source.startswith("$")
            and formula.start
            and text[formula.start - 1].isdigit()
        ):
            source = "$" + escape(source[1:-1]) + "$"
        out.append(source)
        pos = formula.end
    out.append(_escape_equals(_escape_shortcodes(escape(text[pos:]))))
    return "".join(out)


_EQUALS_RUN = re.compile(r"(?<![=\\])={2,}")


def _escape_equals(markdown: str) -> str:
    """Escape each run of ``==`` that could open or close a highlight.

    ``a == b`` (spaces on both sides) stays as typed; ``x==y`` and a literal
    ``==note==`` are written ``x\\==y`` and ``\\==note\\==``.
    """

    def escaped(match: re.Match) -> str:
        before = markdown[match.start() - 1] if match.start() else ""
        after = markdown[match.end()] if match.end() < len(markdown) else ""
        if before and after and before in _SPACE_OR_BREAK and after in _SPACE_OR_BREAK:
            return match.group()
        return "\\" + match.group()

    return _EQUALS_RUN.sub(escaped, markdown)


_ORDERED_MARKER = re.compile(r"\d{1,9}(?=[.)])")
# A line of = under a line of text makes it a heading.
_SETEXT_EQUALS = re.compile(r"=+[ \t]*")


def escape_line_start(line: str) -> str:
    """Escape what would make a line of prose a heading, quote, list or rule."""
    if line[:1] in ("#", ">", "+", "-") or re.match(r"\*(?:[ \t]|$)", line):
        return "\\" + line
    if _SETEXT_EQUALS.fullmatch(line):  # not ==highlight==, which starts so too
        return "\\" + line
    match = _ORDERED_MARKER.match(line)
    if match:
        return line[: match.end()] + "\\" + line[match.end() :]
    return line


def code_span(text: str) -> str:
    """Return ``text`` as a code span whose fence no backtick run inside matches."""
    text = text.replace("\n", " ")
    if not text:
        return ""
    runs = {len(run) for run in re.findall(r"`+", text)}
    fence = "`" * next(n for n in range(1, len(runs) + 2) if n not in runs)
    pad = (
        text.startswith("`")
        or text.endswith("`")
        or (text.startswith(" ") and text.endswith(" ") and text.strip(" "))
    )
    space = " " if pad else ""
    return f"{fence}{space}{text}{space}{fence}"


def link_destination(url: str) -> str:
    """Return ``url`` as a link destination that parses back to the same URL."""
    url = re.sub(r"\\(?=[!-/:-@\[-`{-~])", r"\\\\", url)
    url = _ENTITY.sub(lambda m: "\\" + m.group(0), url)
    balanced = url.count("(") == url.count(")")
    if not url or not balanced or re.search(r"[\s<>]", url):
        return "<" + url.replace("<", "%3C").replace(">", "%3E") + ">"
    return url


def link_title(text: str) -> str:
    """Return ``text`` as a double-quoted link title."""
    text = re.sub(r"\\(?=[!-/:-@\[-`{-~])", r"\\\\", text)
    text = _ENTITY.sub(lambda m: "\\" + m.group(0), text)
    return '"' + text.replace('"', '\\"') + '"'


# --- Parsing rich text -----------------------------------------------------


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    def text(self) -> str:
        """Return the text of this element and its descendants."""
        return "".join(
            child if isinstance(child, str) else child.text() for child in self.children
        )


_VOID = frozenset({"br", "hr", "img", "embed", "wbr", "input"})


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(
            Element(tag, {name: value or "" for name, value in attrs})
        )

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        children = self.stack[-1].children
        if children and isinstance(children[-1], str):
            children[-1] += data
        else:
            children.append(data)


def parse_html(html: str) -> Element:
    """Return the element tree of a rich-text fragment."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


# --- Rich text to Markdown -------------------------------------------------

_LISTS = frozenset({"ul", "ol"})
_BLOCKS = (
    frozenset(
        {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr"}
    )
    | _LISTS
)
_WRAPPERS = {
    "b": "b",
    "strong": "b",
    "i": "i",
    "em": "i",
    "s": "s",
    "del": "s",
    "strike": "s",
    "mark": "mark",
}
_DELIMITERS = {"b": "**", "i": "*", "s": "~~", "mark": "=="}
# Markdown has no superscript or subscript; the importer keeps these inline tags.
_HTML_TAGS = frozenset({"sup", "sub"})
_BREAK = "\x00"  # stands for <br/> until the paragraph is laid out


def _is_space(char: str) -> bool:
    """Whitespace as CommonMark sees it; the edge of the text counts."""
    return not char or char == _BREAK or isWhiteSpace(ord(char))


def _is_punct(char: str) -> bool:
    return bool(char) and (isMdAsciiPunct(ord(char)) or isPunctChar(char))


def _first_char(part: str | _Wrapped) -> str:
    if isinstance(part, _Wrapped):
        return part.inner[:1] if _is_space(part.inner[:1]) else "*"
    return part[:1]


@dataclass
class _Wrapped:
    """Bold, italic or strikethrough, written once its neighbours are known."""

    tag: str
    inner: str

    def markup(self, before: str, after: str) -> str:
        """Return Markdown emphasis, or the HTML tag where Markdown would misread.

        Edge spaces move outside ("** bold **" is no emphasis). A delimiter run
        must be left-flanking to open and right-flanking to close: in
        ``中文**“引号”**中文`` it is neither, so that text is written
        ``中文<b>“引号”</b>中文``, which the importer reads the same.
        """
        inner = self.inner
        start = 0
        while start < len(inner) and _is_space(inner[start]):
            start += 1
        end = len(inner)
        while end > start and _is_space(inner[end - 1]):
            end -= 1
        if start == end:
            return inner
        lead, core, trail = inner[:start], inner[start:end], inner[end:]
        before = lead[-1:] or before
        after = trail[:1] or after
        delimiter = _DELIMITERS[self.tag]
        mark = delimiter[0]
        opens = not _is_space(core[0]) and (
            not _is_punct(core[0]) or _is_space(before) or _is_punct(before)
        )
        closes = not _is_space(core[-1]) and (
            not _is_punct(core[-1]) or _is_space(after) or _is_punct(after)
        )
        # A run of the same marker next to ours would merge with it.
        clear = mark not in (before, after, core[0], core[-1])
        if opens and closes and clear:
            return f"{lead}{delimiter}{core}{delimiter}{trail}"
        return f"{lead}<{self.tag}>{core}</{self.tag}>{trail}"


class _Converter:
    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.in_link = False

    # Inline content -> one string, with _BREAK for hard line breaks.
    def inline(
        self, nodes: list[Element | str], before: str = "", after: str = ""
    ) -> str:
        """Return inline nodes as Markdown; ``before``/``after`` surround them."""
        parts = [self.inline_node(node) for node in nodes]
        out = ""
        for index, part in enumerate(parts):
            if isinstance(part, _Wrapped):
                following = next((p for p in parts[index + 1 :] if p), after)
                part = part.markup(out[-1:] or before, _first_char(following))
            out += part
        return out

    def inline_node(self, node: Element | str) -> str | _Wrapped:
        if isinstance(node, str):
            text = node.replace("\r", "").replace("\n", " ")
            return escape_text(text, link_text=self.in_link)
        tag = node.tag
        if tag == "br":
            return _BREAK
        if tag == "code":
            return code_span(node.text())
        if tag in _WRAPPERS:
            tag = _WRAPPERS[tag]
            # The delimiters around the children are punctuation either way.
            return _Wrapped(tag, self.inline(node.children, "*", "*"))
        if tag in _HTML_TAGS:
            inner = self.inline(node.children, ">", "<")
            return f"<{tag}>{inner}</{tag}>" if inner.strip() else inner
        if tag == "a":
            return self.link(node)
        if tag == "embed":
            kind = node.attrs.get("embedtype", "embed")
            self.resolver.warn(f"rich text {kind} dropped (no Markdown form in prose)")
            return ""
        return self.inline(node.children)

    def link(self, node: Element) -> str:
        self.in_link = True
        try:
            text = self.inline(node.children, "[", "]")
        finally:
            self.in_link = False
        linktype = node.attrs.get("linktype")
        href: str | None
        if linktype == "page":
            href = self._resolve(self.resolver.page_href, node.attrs.get("id"))
            if href is None:
                self.resolver.warn(
                    f"link to missing page {node.attrs.get('id')} kept as text"
                )
        elif linktype == "document":
            href = self._resolve(self.resolver.document_href, node.attrs.get("id"))
            if href is None:
                self.resolver.warn(
                    f"link to missing document {node.attrs.get('id')} kept as text"
                )
        elif linktype:
            href = None
            self.resolver.warn(f"{linktype} link kept as text")
        else:
            href = node.attrs.get("href")
        if href is None:
            return text
        return f"[{text}]({link_destination(href)})"

    @staticmethod
    def _resolve(method, raw_id: str | None) -> str | None:
        try:
            return method(int(raw_id or ""))
        except ValueError:
            return None

    # Blocks -> lists of lines.
    def paragraph(self, nodes: list[Element | str]) -> list[str]:
        text = self.inline(nodes).strip(" \t" + _BREAK)
        if not text.strip():
            return []
        lines = [line.lstrip(" \t") for line in text.split(_BREAK)]
        # A break ends a line with "\" (a hard break) unless nothing follows it.
        laid_out = []
        for index, line in enumerate(lines):
            line = escape_line_start(line)
            if index < len(lines) - 1:
                line = line.rstrip(" \t") + "\\"
            laid_out.append(line)
        return laid_out

    def list_lines(self, element: Element, alternate: bool = False) -> list[str]:
        ordered = element.tag == "ol"
        items = [
            child
            for child in element.children
            if isinstance(child, Element) and child.tag == "li"
        ]
        start = element.attrs.get("start", "1")
        first = int(start) if ordered and start.isdigit() else 1
        lines: list[str] = []
        for number, item in enumerate(items, start=first):
            if ordered:
                marker = f"{number}{')' if alternate else '.'}"
            else:
                marker = "*" if alternate else "-"
            body = self.blocks(item.children, tight=True)
            pad = " " * (len(marker) + 1)
            if not body:
                lines.append(marker)
                continue
            lines.append(f"{marker} {body[0]}" if body[0] else marker)
            lines.extend(pad + line if line else "" for line in body[1:])
        return lines

    def blocks(self, nodes: list[Element | str], *, tight: bool = False) -> list[str]:
        """Return the Markdown lines of block content: paragraphs and lists.

        Blocks are separated by a blank line; inside a list item (``tight``) a
        nested list follows its text directly.
        """
        chunks: list[tuple[str, list[str]]] = []
        run: list[Element | str] = []

        def flush():
            if run:
                lines = self.paragraph(run)
                if lines:
                    chunks.append(("p", lines))
                run.clear()

        for node in nodes:
            if isinstance(node, str) or node.tag not in _BLOCKS:
                run.append(node)
                continue
            flush()
            if node.tag in _LISTS:
                # Two lists in a row stay two lists only if their markers differ.
                previous = chunks[-1] if chunks else None
                alternate = (
                    previous is not None
                    and previous[0] == node.tag
                    and not previous[1][0].startswith(("*", "1)"))
                )
                lines = self.list_lines(node, alternate=alternate)
                if lines:
                    chunks.append((node.tag, lines))
            elif node.tag != "hr":
                lines = self.paragraph(node.children)
                if lines:
                    chunks.append(("p", lines))
        flush()

        out: list[str] = []
        for index, (kind, lines) in enumerate(chunks):
            if index:
                joined_tight = tight and kind in _LISTS and chunks[index - 1][0] == "p"
                if not joined_tight:
                    out.append("")
            out.extend(lines)
        return out


def rich_text_to_markdown(html: str, resolver: Resolver) -> str:
    """Return rich-text HTML as Markdown prose: paragraphs and lists."""
    return "\n".join(_Converter(resolver).blocks(parse_html(html or "").children))
