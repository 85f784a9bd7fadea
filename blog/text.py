"""The text of a post body, read from what each block type declares.

Works on the raw stream data, so nothing is rendered and nothing is queried.
Each block's ``Meta.text`` (see `blog.blocks.Text`) says which of its fields
hold which kind of text; search text and reading time both read the body
through `body_pieces`, so a new block type is searched and timed once it
declares its text.
"""

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from wagtail.rich_text import get_text_for_indexing

from blog.blocks import PostBodyBlock, Text, text_declaration
from rendering.inline import inline_pieces
from rendering.markdown import markdown_passages, markdown_text

# A passage of a search snippet: ("text", literal) and ("math", tex) pieces.
Passage = list[tuple[str, str]]


class Piece(NamedTuple):
    """One field's text, with the kind its block declares it to be."""

    block_type: str
    kind: Text
    text: str


def _strings(value: Any) -> Iterator[str]:
    """Yield the strings of a field's value: itself, or each item of a list."""
    if isinstance(value, list | tuple):
        for item in value:
            if item is not None:
                yield from _strings(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)  # a table cell stored as a number


def _fields(declaration, value) -> Iterator[tuple[Text, Any]]:
    """Yield (kind, value) for each field of a block's raw value that holds text."""
    if isinstance(declaration, Mapping):
        if not isinstance(value, Mapping):
            return
        for name, kind in declaration.items():
            if kind is not Text.NONE:
                yield kind, value.get(name) or ""
    elif declaration is not None and declaration is not Text.NONE:
        yield declaration, value or ""


def body_pieces(raw_blocks: Iterable[Mapping], stream_block=None) -> Iterator[Piece]:
    """Yield the text of a body's raw stream data, block by block.

    Fields come in the order the block declares them. An empty field yields
    "" (a formula with no TeX is still a formula); fields declared
    `Text.NONE`, and block types ``stream_block`` (by default `PostBodyBlock`)
    does not have, yield nothing.
    """
    children = (stream_block or _post_body()).child_blocks
    for raw in raw_blocks:
        block_type = raw.get("type")
        child = children.get(block_type)
        if child is None:
            continue
        for kind, value in _fields(text_declaration(child), raw.get("value")):
            for text in _strings(value):
                yield Piece(block_type, kind, text)


def body_text(stream_value) -> str:
    """Return the searchable text of a body: prose, headings, code, TeX, captions.

    Rich text is reduced to its text; everything else is kept as written,
    whitespace collapsed.
    """
    return _joined(body_pieces(stream_value.raw_data, stream_value.stream_block))


def prose_text(stream_value) -> str:
    """Return the prose of a body (no code, TeX or labels), whitespace collapsed."""
    pieces = body_pieces(stream_value.raw_data, stream_value.stream_block)
    return _joined(p for p in pieces if p.kind in (Text.PROSE, Text.RICH_TEXT))


def snippet_passages(stream_value) -> list[Passage]:
    """Return the passages a search snippet is cut from, each block's text apart.

    Prose keeps its inline math as formulas, so a snippet shows them typeset;
    code is text; display math and labels are left out. Headings come last:
    a heading's words open the section under it, and a snippet from that
    section reads better than the heading alone.
    """
    passages: list[Passage] = []
    headings: list[Passage] = []
    for piece in body_pieces(stream_value.raw_data, stream_value.stream_block):
        if piece.kind is Text.MARKDOWN:
            passages += markdown_passages(piece.text)
            continue
        if piece.kind is Text.PROSE:
            found = inline_pieces(piece.text)
        elif piece.kind is Text.RICH_TEXT:
            found = inline_pieces(get_text_for_indexing(piece.text))
        elif piece.kind is Text.CODE:
            found = [("text", piece.text)]
        else:
            continue
        if found:
            (headings if piece.block_type == "heading" else passages).append(found)
    return passages + headings


def _text(piece: Piece) -> str:
    if piece.kind is Text.RICH_TEXT:
        return get_text_for_indexing(piece.text)
    if piece.kind is Text.MARKDOWN:
        return markdown_text(piece.text)  # without the author's %%comments%%
    return piece.text


def _joined(pieces: Iterable[Piece]) -> str:
    texts = [_text(piece) for piece in pieces]
    return " ".join(" ".join(t.split()) for t in texts if t)


@functools.cache
def _post_body() -> PostBodyBlock:
    """Return one PostBodyBlock, made on first use and kept."""
    return PostBodyBlock()
