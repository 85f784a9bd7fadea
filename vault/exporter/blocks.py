"""Turn body blocks and page fields into the Markdown of docs/markdown-format.md.

Blocks arrive as the raw JSON a StreamField stores (``stream.raw_data``): image
blocks hold an image id, rich text holds Wagtail's HTML. Each block type has
one writer, registered by its name with ``@writes(name)``; `vault.importer`
reads the Markdown back. Pure functions; what needs the site comes through a
`Resolver`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import yaml

from rendering import DIAGRAM_LANGUAGE, parse_line_spec

from .richtext import (
    Resolver,
    escape_text,
    link_destination,
    link_title,
    rich_text_to_markdown,
)

BREAK = "<!-- break -->"
BLOCK_END = "<!-- /block -->"
_END_LINE = re.compile(r"^\s*<!--\s*/block\s*-->\s*$", re.MULTILINE)
# The destination of a Markdown image of the media library: ``![alt](image:42)``.
_LIBRARY_IMAGE = re.compile(r"(\]\(\s*)<?image:(\d+)>?(?=[\s)])")
_FIGURE_IMAGE = re.compile(r"""(\bsrc\s*=\s*["']?)image:(\d+)""", re.IGNORECASE)
HEADING_LEVELS = {"h2": 2, "h3": 3, "h4": 4}
# A paragraph right after a table that starts so is read as the table's caption.
_CAPTION = re.compile(r"table[:：]", re.IGNORECASE)

# A writer turns one block's raw value into Markdown ("" if it has nothing to say).
Writer = Callable[[Any, Resolver], str]
# The writer of each block type, by its name in the body (`PostBodyBlock`).
WRITERS: dict[str, Writer] = {}


def writes(block_type: str) -> Callable[[Writer], Writer]:
    """Register the decorated function as the writer of ``block_type``."""

    def register(writer: Writer) -> Writer:
        WRITERS[block_type] = writer
        return writer

    return register


@writes("heading")
def heading_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    level = HEADING_LEVELS.get(value.get("level") or "h2", 2)
    text = escape_text(" ".join((value.get("text") or "").split()))
    # A run of # after a space would be read as the heading's closing sequence.
    text = re.sub(r"(\s)(#+)$", r"\1\\\2", text)
    return f"{'#' * level} {text}".rstrip()


def verbatim_block(name: str, source: str, resolver: Resolver, attrs: str = "") -> str:
    """Return ``source`` between ``<!-- block:name -->`` and ``<!-- /block -->``.

    The source is the lines between the two comments, so a final newline of its
    own shows as a blank line before the closing comment. A line of the source
    that is itself the closing comment would end the block early: reported.
    """
    if _END_LINE.search(source):
        resolver.warn(f"a {name} block holds a {BLOCK_END} line: cut there")
    opening = f"<!-- block:{name}{' ' + attrs if attrs else ''} -->"
    return f"{opening}\n{source}\n{BLOCK_END}"


def code_info(value: Mapping[str, Any]) -> str:
    """Return the info string: ``lang title="…" {lines} nolinenos``."""
    parts = [value.get("language") or "text"]
    filename = (value.get("filename") or "").strip()
    if filename:
        quote = "'" if '"' in filename and "'" not in filename else '"'
        parts.append(f"title={quote}{filename}{quote}")
    spec = "".join((value.get("highlight_lines") or "").split())
    if spec:
        try:
            parse_line_spec(spec)
        except ValueError:
            spec = ""  # Stored before validation existed; the renderer ignores it too.
        else:
            parts.append(f"{{{spec}}}")
    if not value.get("line_numbers", True):
        parts.append("nolinenos")
    return " ".join(parts)


def fenced(code: str, info: str) -> str:
    """Return ``code`` in a fence with the info string ``info``."""
    # A fence longer than any run inside; "~" when the info string holds a backtick.
    char = "~" if "`" in info else "`"
    longest = max(
        (len(run) for run in re.findall(re.escape(char) + "+", code)), default=0
    )
    fence = char * max(3, longest + 1)
    # The code's own final newline stays: the block ends with one more.
    return f"{fence}{info}\n{code}\n{fence}"


@writes("code")
def code_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    return fenced(value.get("code") or "", code_info(value))


@writes("diagram")
def diagram_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    return fenced(value.get("source") or "", DIAGRAM_LANGUAGE)


@writes("math")
def math_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    tex = (value.get("tex") or "").strip("\n")
    label = (value.get("label") or "").strip()
    block = f"$$\n{tex}\n$$"
    if label:
        return f"<!-- label: {label} -->\n{block}"
    return f"<!-- numbered -->\n{block}" if value.get("numbered") else block


def image_alt(text: str) -> str:
    """Return alt text for ``![…]``, as written: the importer reads the label raw.

    Only what would end the label early is escaped: an unbalanced bracket.
    """
    out: list[str] = []
    opened: list[int] = []  # where each "[" not yet closed is in out
    for char in " ".join(text.split()):
        if char == "[":
            opened.append(len(out))
        elif char == "]":
            if not opened:
                out.append("\\]")
                continue
            opened.pop()
        out.append(char)
    for index in opened:
        out[index] = "\\["
    return "".join(out)


@writes("image")
def image_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    image_id = value.get("image")
    src = resolver.image_src(image_id) if image_id is not None else None
    if image_id is None and value.get("url"):
        src = value["url"]  # a remote image, shown from its URL
    if src is None:
        resolver.warn(f"image block with missing image {image_id} dropped")
        return ""
    alt = image_alt(value.get("alt") or "")
    caption = " ".join((value.get("caption") or "").split())
    title = f" {link_title(caption)}" if caption else ""
    # MkDocs' attribute list, which the importer reads back (Obsidian's
    # ``![[x.png|300]]`` has no caption).
    width = value.get("width")
    size = f'{{ width="{int(width)}" }}' if width else ""
    return f"![{alt}]({link_destination(src)}{title}){size}"


def table_cell(text: str | None) -> str:
    # GFM splits a row on "|" before reading the cells, formulas included.
    return escape_text(" ".join((text or "").split())).replace("|", "\\|")


@writes("table")
def table_to_markdown(value: Mapping[str, Any] | None, resolver: Resolver) -> str:
    rows = [list(row or []) for row in (value or {}).get("data") or []]
    if not rows:
        return ""
    width = max(1, *(len(row) for row in rows))
    lines = []
    for index, row in enumerate(rows):
        cells = [table_cell(cell) for cell in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + " --- |" * width)
    caption = " ".join(((value or {}).get("table_caption") or "").split())
    if caption:
        lines += ["", f"Table: {escape_text(caption)}"]
    return "\n".join(lines)


def quoted(lines: Iterable[str]) -> list[str]:
    return [f"> {line}" if line else ">" for line in lines]


@writes("callout")
def callout_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    kind = (value.get("kind") or "note").upper()
    title = escape_text(" ".join((value.get("title") or "").split()))
    marker = f"[!{kind}] {title}".rstrip()
    body = rich_text_to_markdown(value.get("body") or "", resolver)
    return "\n".join(quoted([marker, *body.splitlines()]))


@writes("quote")
def quote_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    lines = rich_text_to_markdown(value.get("quote") or "", resolver).splitlines()
    source = " ".join((value.get("source") or "").split())
    if source:
        # Its own paragraph, so other Markdown renderers show it on its own line.
        lines += [""] * bool(lines) + [f"— {escape_text(source)}"]
    return "\n".join(quoted(lines))


def _attr(value: str) -> str:
    """Return ``value`` escaped for a double-quoted attribute inside a comment."""
    return html.escape(" ".join(value.split()), quote=False).replace('"', "&quot;")


@writes("html_figure")
def html_figure_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    attrs = f'height="{value.get("height") or 420}"'
    caption = value.get("caption") or ""
    if caption.strip():
        attrs += f' caption="{_attr(caption)}"'
    markup = figure_images_to_files(value.get("html") or "", resolver)
    return verbatim_block("html_figure", markup, resolver, attrs)


def figure_images_to_files(markup: str, resolver: Resolver) -> str:
    """Return HTML with each ``<img src="image:ID">`` pointing at its exported file."""

    def replace(match: re.Match) -> str:
        image_id = int(match.group(2))
        src = resolver.image_src(image_id)
        if src is None:
            resolver.warn(f"HTML figure image of missing image {image_id} kept")
            return match.group(0)
        return match.group(1) + html.escape(src)

    return _FIGURE_IMAGE.sub(replace, markup)


@writes("embed")
def embed_to_markdown(value: Any, resolver: Resolver) -> str:
    url = value.get("url") if isinstance(value, Mapping) else value
    url = str(url or "").strip()
    return f"<!-- embed: {url} -->" if url else ""


@writes("note")
def note_to_markdown(value: Mapping[str, Any], resolver: Resolver) -> str:
    """Write an embedded post as Obsidian does: ``![[path/to/note#heading]]``.

    The path is the exported file's, relative to this one, without ``.md``.
    """
    page_id = value.get("page")
    href = resolver.page_href(int(page_id)) if page_id else None
    heading = " ".join((value.get("heading") or "").split())
    if href is None:
        resolver.warn(f"embedded page {page_id} is missing: left out")
        return ""
    if not href.lower().endswith(".md"):
        resolver.warn(f"embedded page {href} is not exported: written as a link")
        return f"<{href}>"
    if re.search(r"[\[\]|#^]", heading):
        resolver.warn(f"embedded section {heading!r} has [ ] | # ^: embeds the whole")
        heading = ""
    target = href[:-3] + (f"#{heading}" if heading else "")
    return f"![[{target}]]"


@writes("markdown")
def markdown_block_to_markdown(value: str | None, resolver: Resolver) -> str:
    if not (value or "").strip():
        return ""
    return verbatim_block(
        "markdown", library_images_to_files(value, resolver), resolver
    )


def library_images_to_files(source: str, resolver: Resolver) -> str:
    """Return Markdown with each ``![…](image:ID)`` pointing at its exported file."""

    def replace(match: re.Match) -> str:
        image_id = int(match.group(2))
        src = resolver.image_src(image_id)
        if src is None:
            resolver.warn(f"Markdown image of missing image {image_id} kept")
            return match.group(0)
        return f"{match.group(1)}{link_destination(src)}"

    return _LIBRARY_IMAGE.sub(replace, source)


@writes("paragraph")
def paragraph_to_markdown(value: str | None, resolver: Resolver) -> str:
    return rich_text_to_markdown(value or "", resolver)


def block_to_markdown(block_type: str, value: Any, resolver: Resolver) -> str:
    """Return one body block as Markdown ("" if it has nothing to say)."""
    writer = WRITERS.get(block_type)
    if writer is None:
        resolver.warn(f"unknown block type {block_type!r} dropped")
        return ""
    return writer(value, resolver)


def body_to_markdown(
    raw_blocks: Iterable[Mapping[str, Any]], resolver: Resolver
) -> str:
    """Return a body (``stream.raw_data``) as Markdown, blocks a blank line apart.

    Two paragraph blocks in a row are kept apart by ``<!-- break -->``: Markdown
    prose in a row is one block.
    """
    parts: list[str] = []
    previous = None
    for raw in raw_blocks:
        block_type = raw.get("type")
        text = block_to_markdown(block_type, raw.get("value"), resolver)
        if not text:
            continue
        if block_type == "paragraph":
            if previous == "paragraph":
                parts.append(BREAK)
            elif previous == "table" and _CAPTION.match(text):
                # Not the table's caption but the paragraph's own text: spell its
                # first letter as a character reference, which reads back the same.
                text = f"&#{ord(text[0])};{text[1:]}"
        parts.append(text)
        previous = block_type
    return "\n\n".join(parts)


def front_matter(fields: Mapping[str, Any]) -> str:
    """Return ``fields`` as a YAML front matter block, keys in the given order."""
    dumped = yaml.safe_dump(
        dict(fields), allow_unicode=True, sort_keys=False, width=1_000_000
    )
    return f"---\n{dumped}---\n"


def document(fields: Mapping[str, Any], body: str) -> str:
    """Return a Markdown file: front matter, then the body, ending with a newline."""
    head = front_matter(fields)
    body = body.strip("\n")
    return f"{head}\n{body}\n" if body else head
