"""A Markdown body to StreamField blocks, following docs/markdown-format.md.

`parse_body` walks markdown-it's token stream (the plugins the site renders
with, plus raw HTML so figures and directives are seen) and returns raw block
values in Wagtail's JSON shape, with what needs the database left as
placeholders: images (`ImageSlot`) and links to other files (markers, see
`inline.LinkRef`). Every formula is listed with its line, so bad LaTeX is
reported as ``file:line``. No database here; the files a post refers to are
read through an `AssetFinder`.

Each construct has its own module of handlers, over one `BodyContext` (the
document, the blocks built so far, what is pending), and `parser` sends each
node to its construct's handler:

    parser      the pass over the nodes, the dispatch tables, pre- and post-passes
    context     BodyContext: the state every handler shares, emit() and flush()
                (and Region, a region the pre-pass found)
    headings    headings, the H1 that titles the post, notes headings refer to
    prose       paragraphs, joined into one rich-text block
    notes       an embedded note, ``![[note#heading]]``
    lists       lists as rich text; the rich text of a quote's or callout's body
    quotes      quotes, and the callouts among them
    callouts    callouts: ``> [!NOTE]`` and MkDocs' ``!!! note``
    tables      tables and their ``Table:`` captions
    code        code fences and indented code
    formulas    display math, and every formula checked with its line
    diagrams    ``mermaid`` fences
    images      image blocks, and images inside Markdown and HTML source
    figures     HTML fragments: images, an inline ``<svg>``, an HTML figure
    rawhtml     HTML blocks: a region, a directive, or a fragment to its end
    tags        where each HTML element a body opens is closed (TagDepths)
    directives  ``<!-- break -->``, ``label:``, ``numbered``, ``embed:``
    regions     ``<!-- block:TYPE -->`` regions, read by block type
    comments    Obsidian ``%%comments%%``, kept in a Markdown block
    footnotes   where footnotes are defined, and which a node refers to
    fallback    the Markdown block, for what rich text cannot hold
"""

from ..parsed import ImageSlot, ParsedBody
from .parser import parse_body
from .regions import REGION_READERS

__all__ = ["REGION_READERS", "ImageSlot", "ParsedBody", "parse_body"]
