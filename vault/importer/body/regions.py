"""``<!-- block:TYPE -->`` regions: a block the export wrote verbatim, read back.

A region's content is kept verbatim, so the document is parsed with the inside
of every region blanked (`parse_with_regions`); the region is then read by the
reader of its block type (`REGION_READERS`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from markdown_it.token import Token

from ..inline import html_attrs
from ..report import Issue
from ..tokens import parse_markdown
from .context import BodyContext, Region
from .figures import DEFAULT_FIGURE_HEIGHT, figure
from .formulas import caption_formulas, collect_formulas
from .images import markdown_images

REGION_START = re.compile(r"<!--\s*block:([\w-]+)(.*?)-->\s*", re.DOTALL)
REGION_END = re.compile(r"\s*<!--\s*/block\s*-->\s*")
# A line that may open a `<!-- block:TYPE -->` region (a parse tells), and how
# many parses may drop one false region comment at a time.
_REGION_LINE = re.compile(r"[ ]{0,3}<!--\s*block:[\w-]+")
_REGION_PARSES = 10


def parse_with_regions(ctx: BodyContext, text: str) -> list[Token]:
    """Parse ``text``, first blanking the inside of block regions.

    A region's content is kept verbatim, so it must not be parsed with the
    rest (an unclosed fence inside would swallow the document). Every line
    that may open a region is blanked up to its closing line at once; a
    parse then tells which are regions (a region comment inside a code
    fence is not one). The parse is right up to the first that is not, so
    that one is dropped and the document parsed again. So a post of many
    regions is parsed a few times, not once per region; past
    `_REGION_PARSES`, every one that is not a region is dropped at once, so
    a document of many false ones stays linear.
    """
    closings = [
        k for k, line in enumerate(ctx.source_lines) if REGION_END.fullmatch(line)
    ]
    candidates: list[tuple[int, int | None]] = []
    for k, line in enumerate(ctx.source_lines):
        if _REGION_LINE.match(line):
            at = bisect.bisect_right(closings, k)
            candidates.append((k, closings[at] if at < len(closings) else None))
    excluded: set[int] = set()
    parses = 0
    while True:
        lines = list(ctx.source_lines)
        taken: list[tuple[int, int | None]] = []
        covered = -1  # the last line inside a region taken so far
        for start, end in candidates:
            if start in excluded or start <= covered:
                continue
            taken.append((start, end))
            covered = len(lines) - 1 if end is None else end
            for k in range(start + 1, covered + 1):
                lines[k] = ""
        ctx.env = {"max_nesting": ctx.max_nesting}
        tokens = parse_markdown("\n".join(lines), ctx.env)
        found = {}
        for token in tokens:
            if token.type != "html_block" or token.level or not token.map:
                continue
            match = REGION_START.fullmatch(token.content.strip() + "\n")
            if match:
                found[token.map[0]] = match
        wrong = [start for start, _ in taken if start not in found]
        if not wrong:
            break
        parses += 1
        excluded |= set(wrong) if parses > _REGION_PARSES else {wrong[0]}
    for start, end in taken:
        match = found[start]
        if end is None:
            ctx.result.errors.append(
                Issue(
                    f"<!-- block:{match.group(1)} --> is never closed by <!-- /block -->",
                    start + ctx.first_line,
                )
            )
            end = len(lines)
        content = "\n".join(ctx.source_lines[start + 1 : end])
        ctx.regions[start] = Region(
            match.group(1).lower(), html_attrs(match.group(2)), content, start
        )
    return tokens


def read_region(ctx: BodyContext, region: Region, line: int) -> None:
    """Emit a `<!-- block:TYPE -->` region through the reader of its block type."""
    reader = REGION_READERS.get(region.type)
    if reader is None:
        ctx.warn(f"unknown block type {region.type!r}; kept as Markdown", line)
        reader = REGION_READERS["markdown"]
    reader(ctx, region, line)


def html_figure_region(ctx: BodyContext, region: Region, line: int) -> None:
    try:
        height = int(region.attrs.get("height", DEFAULT_FIGURE_HEIGHT))
    except ValueError:
        height = DEFAULT_FIGURE_HEIGHT
    caption = caption_formulas(ctx, region.attrs.get("caption", ""), line)
    figure(ctx, region.content, height, caption, line, images=True)


def markdown_region(ctx: BodyContext, region: Region, line: int) -> None:
    if not region.content.strip():
        return
    tokens = parse_markdown(region.content)
    collect_formulas(ctx, tokens, line + 1)
    # Verbatim: the lines between the comments, so a value round-trips exactly;
    # only the images it shows are put in the media library.
    ctx.emit("markdown", markdown_images(ctx, region.content, line + 1), line)


# The reader of each `<!-- block:TYPE -->` region, by block name: the way back
# from the verbatim form vault.exporter writes. Other blocks are read from the
# Markdown syntax they are written in (headings, fences, $$, tables, > [!NOTE]).
REGION_READERS: dict[str, Callable[[BodyContext, Region, int], None]] = {
    "html_figure": html_figure_region,
    "markdown": markdown_region,
}
