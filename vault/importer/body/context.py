"""The state one body's parse shares: every construct's handler reads and writes it.

A handler takes the `BodyContext` and the tokens of its construct; what it
makes goes out through `BodyContext.emit` (a block) or `add_prose` (rich text
that joins the paragraph block being built). The `<!-- block:TYPE -->`
regions found before the pass (`regions.parse_with_regions`) are kept here
as `Region`s, for the HTML handler to read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from ..assets import AssetFinder, Located, local_part
from ..inline import Collector, InlineConverter
from ..mathfix import FormulaFixer
from ..parsed import Block, ParsedBody
from ..report import Issue
from .tags import TagDepths


@dataclass
class Region:
    """A `<!-- block:TYPE … -->…<!-- /block -->` region, kept verbatim."""

    type: str
    attrs: dict[str, str]
    content: str
    start: int  # 0-based line of the opening comment


class BodyContext:
    """One document's parse: its source, what is built so far, and pending state."""

    def __init__(
        self,
        text: str,
        first_line: int,
        title: str | None,
        base_dir: Path | None,
        finder: AssetFinder | None,
        *,
        breaks: bool,
        fixer: FormulaFixer,
        max_nesting: int,
    ) -> None:
        self.first_line = first_line
        self.fixer = fixer
        self.max_nesting = max_nesting
        self.title = title
        self.base = base_dir or Path()
        self.finder = finder
        self.result = ParsedBody()
        self.collector = Collector(
            links=self.result.links,
            warnings=self.result.warnings,
            attachments=self.result.attachments,
        )
        self.inline = InlineConverter(self.collector, breaks=breaks)
        self.source_lines = text.split("\n")
        self.regions: dict[int, Region] = {}
        self.env: dict = {}  # markdown-it's, for the footnotes it saw
        self.tokens: list[Token] = []
        # Lines a Markdown block must end with "\\" to keep the author's breaks.
        self.hard_lines: set[int] = set()
        self.footnotes: dict[str, tuple[int, int]] = {}
        self.empty_notes: set[str] = set()  # defined as `[^x]:` and nothing else
        self.note_tokens: dict[str, list[Token]] = {}
        self.shown_notes: set[str] = set()  # definitions a Markdown block holds
        self.heading_notes: dict[str, int] = {}  # label -> line of the heading
        self.prose: list[str] = []
        self.prose_line = first_line
        self.pending_label = ""
        self.pending_numbered = False
        self.label = ""  # a `<!-- label: … -->` for the node being converted
        self.numbered = False
        self.previous = ""  # the type of the node before it
        self.h1_seen = False
        self.at_start = True  # the node being converted is the body's first
        self.tag_depths: TagDepths | None = None  # made on the first HTML element

    def line(self, token: Token) -> int:
        return token.map[0] + self.first_line if token.map else self.first_line

    def warn(self, message: str, line: int | None) -> None:
        self.result.warnings.append(Issue(message, line))

    def emit(self, type_: str, value: Any, line: int) -> None:
        self.flush()
        if type_ == "markdown":
            value = self.fixer.fix_source(value)
        self.result.blocks.append(Block(type_, value, line))

    def add_prose(self, markup: str, line: int) -> None:
        if not self.prose:
            self.prose_line = line
        self.prose.append(markup)

    def flush(self) -> None:
        """End the current paragraph block (consecutive prose is one block)."""
        if self.prose:
            self.result.blocks.append(
                Block("paragraph", "".join(self.prose), self.prose_line)
            )
            self.prose = []

    def local_file(self, src: str, line: int, missing: str) -> Path | None:
        """Return the vault file ``src`` names; warn if it is missing or refused."""
        located = self.finder.locate(src, self.base) if self.finder else Located()
        if located.warning:
            self.warn(located.warning, line)
        elif located.path is None:
            self.warn(f"{missing}: {local_part(src) or src}", line)
        return located.path
