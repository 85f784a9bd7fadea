"""A Markdown body to StreamField blocks, following docs/markdown-format.md.

`parse_body` walks markdown-it's token stream (the plugins the site renders
with, plus raw HTML so figures and directives are seen) and returns raw block
values in Wagtail's JSON shape, with what needs the database left as
placeholders: images (`ImageSlot`) and links to other files (markers, see
`inline.LinkRef`). Every formula is listed with its line, so bad LaTeX is
reported as ``file:line``. No database here; the files a post refers to are
read through an `AssetFinder`.

The parser is one class in three modules: prose, headings, tables, code,
math and `<!-- block:TYPE -->` regions here; lists, quotes and callouts in
`containers`; raw HTML, images and figures in `rawhtml`.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from rendering import (
    DIAGRAM_LANGUAGE,
    HEADING_MAX_LENGTH,
    LANGUAGE_ALIASES,
    is_bound_error,
    language_choices,
    normalise_language,
    parse_line_spec,
)
from rendering.obsidian_comments import COMMENT
from rendering.parser import MAX_NESTING

from .assets import AssetFinder
from .containers import EDGE_BREAKS, ContainerMixin
from .inline import (
    IMAGE_SUFFIXES,
    Collector,
    DisplayMath,
    ImageRef,
    InlineConverter,
    LinkRef,
    attr_width,
    embed_width,
    escape_text,
    html_attrs,
    is_note_target,
)
from .links import WIKILINK, parse_wikilink
from .mathfix import FormulaFixer
from .parsed import Block, Formula, ImageSlot, PageSlot, ParsedBody
from .rawhtml import (
    DEFAULT_FIGURE_HEIGHT,
    IMG_TAG,
    REGION_END,
    REGION_START,
    RawHtmlMixin,
    Region,
)
from .report import Issue
from .theme import PLACEHOLDER
from .tokens import fence_language as _fence_language
from .tokens import parse_markdown, soft_break_lines, split_nodes, walk_children

__all__ = ["REGION_READERS", "ImageSlot", "ParsedBody", "parse_body"]

LANGUAGE_NAMES = frozenset(alias for alias, _ in language_choices())
_TEXT_NAMES = frozenset(
    {"text"} | {name for name, alias in LANGUAGE_ALIASES.items() if alias == "text"}
)
MATH_BLOCKS = frozenset({"math_block", "amsmath"})
# A footnote reference markdown-it left as text: its label has no definition.
# A label holds no bracket, so a run of `[^` costs linear time.
_UNDEFINED_NOTE = re.compile(r"\[\^([^\[\]\s]+)\](?!:)")

# A line that may open a `<!-- block:TYPE -->` region (a parse tells), and how
# many parses may drop one false region comment at a time.
_REGION_LINE = re.compile(r"[ ]{0,3}<!--\s*block:[\w-]+")
_REGION_PARSES = 10
_CAPTION = re.compile(r"Table[:：]\s*\S", re.IGNORECASE)
_CAPTION_PREFIX = re.compile(r"^Table[:：]\s*", re.IGNORECASE)
_FENCE_TITLE = re.compile(
    r"""\b(?:title|filename|file)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))"""
)
_FENCE_LINES = re.compile(r"\{([\d,\s-]+)\}")
_FENCE_HL = re.compile(r"""\bhl_lines\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_FENCE_NOLINENOS = re.compile(
    r"\bnolinenos\b|\b(?:linenos|showLineNumbers|numberLines)\s*=\s*(?:false|0)\b",
    re.I,
)


def parse_body(
    text: str,
    *,
    first_line: int = 1,
    title: str | None = None,
    base_dir: Path | None = None,
    finder: AssetFinder | None = None,
    breaks: bool = False,
    max_formulas: int | None = None,
    max_nesting: int | None = None,
    max_math_seconds: float | None = None,
) -> ParsedBody:
    """Return the blocks of a post body.

    ``first_line`` is the file line the body starts on (after front matter).
    A first ``# H1`` equal to ``title`` is dropped; with ``title`` None an H1
    that is the body's first block becomes `ParsedBody.h1` instead. With ``breaks`` a single newline
    inside a paragraph is a line break (Obsidian's default, MkDocs' nl2br).
    Formulas past ``max_formulas``, or once ``max_math_seconds`` have gone on
    checking them, are not checked (see `FormulaFixer`); blocks nested deeper
    than ``max_nesting`` levels are an error.
    """
    return _BodyParser(
        text,
        first_line,
        title,
        base_dir,
        finder,
        breaks=breaks,
        max_formulas=max_formulas,
        max_nesting=max_nesting,
        max_math_seconds=max_math_seconds,
    ).parse()


def _holds_comment(node: list[Token]) -> bool:
    """Return whether ``node`` has an Obsidian ``%%comment%%`` in it, or is one."""
    return any(
        token.type == COMMENT or (token.meta and "comment_closes" in token.meta)
        for token in walk_children(node)
    )


def _excerpt(tex: str, length: int = 60) -> str:
    """Return the start of a formula on one line, to name it in a warning."""
    text = " ".join(tex.split())
    return text if len(text) <= length else text[: length - 1] + "…"


def _same_title(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


class _BodyParser(ContainerMixin, RawHtmlMixin):
    """One pass over a document's tokens, emitting blocks in order."""

    def __init__(
        self,
        text: str,
        first_line: int,
        title: str | None,
        base_dir: Path | None,
        finder: AssetFinder | None,
        *,
        breaks: bool = False,
        max_formulas: int | None = None,
        max_nesting: int | None = None,
        max_math_seconds: float | None = None,
    ) -> None:
        self.first_line = first_line
        self.fixer = FormulaFixer(max_formulas, max_math_seconds)
        self.max_nesting = min(max_nesting or MAX_NESTING, MAX_NESTING)
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
        self.tokens = self._parse_with_regions(text)
        # Lines a Markdown block must end with "\\" to keep the author's breaks.
        self.hard_lines = soft_break_lines(self.tokens) if breaks else set()
        self.footnotes: dict[str, tuple[int, int]] = {}
        self.empty_notes: set[str] = set()  # defined as `[^x]:` and nothing else
        self.note_tokens: dict[str, list[Token]] = {}
        self.shown_notes: set[str] = set()  # definitions a Markdown block holds
        self.heading_notes: dict[str, int] = {}  # label -> line of the heading
        self.prose: list[str] = []
        self.prose_line = first_line
        self.pending_label = ""
        self.pending_numbered = False
        self.numbered = False
        self.h1_seen = False
        self.at_start = True  # the node being converted is the body's first

    # Driver ----------------------------------------------------------------

    def parse(self) -> ParsedBody:
        if "too_deep" in self.env:
            self.result.errors.append(
                Issue(
                    f"nested too deeply: lists and quotes more than {self.max_nesting} "
                    "levels deep (VAULT_MAX_NESTING; each list counts two levels, each "
                    "quote one); raise VAULT_MAX_NESTING to import it",
                    self.env["too_deep"] + self.first_line,
                )
            )
            return self.result
        self._drop_placeholders()
        self._collect_formulas(self.tokens, self.first_line)
        self._collect_footnotes()
        nodes = split_nodes(self.tokens)
        i = 0
        while i < len(nodes):
            i = self._node(nodes, i)
        self._heading_notes()
        self._flush()
        for attachment in self.result.attachments:
            attachment.path = self._local_file(
                attachment.src, attachment.line, "missing attachment"
            )
            if attachment.path is not None:
                self.result.assets.add(attachment.path)
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
        if self.fixer.over_limit:
            limit = self.fixer.limit
            self._warn(
                f"too many formulas: {self.fixer.count:,}, more than the {limit:,} "
                f"VAULT_MAX_POST_FORMULAS allows; the post is imported, but only the "
                f"first {limit:,} were checked (raise VAULT_MAX_POST_FORMULAS to check "
                "them all)",
                None,
            )
        self.result.math_out_of_time = self.fixer.out_of_time
        return self.result

    def _node(self, nodes: list[list[Token]], i: int) -> int:
        """Convert ``nodes[i]``; return the index of the next node to convert."""
        node = nodes[i]
        kind = node[0].type
        label, self.pending_label = self.pending_label, ""
        # A `<!-- numbered -->` comment numbers the next node's display math.
        self.numbered, self.pending_numbered = self.pending_numbered, False
        previous = nodes[i - 1][0].type if i else ""
        self.at_start = i == 0
        if _holds_comment(node) and not self._is_title(node):
            return self._commented(nodes, i)
        if kind == "heading_open":
            self._heading(node)
        elif kind == "paragraph_open":
            self._paragraph(node, previous)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self._list(node)
        elif kind == "blockquote_open":
            self._blockquote(node)
        elif kind == "admonition_open":
            self._admonition(node)
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

    def _is_title(self, node: list[Token]) -> bool:
        """Return whether ``node`` is the first H1, which may be the post's title."""
        return (
            node[0].type == "heading_open" and node[0].tag == "h1" and not self.h1_seen
        )

    def _commented(self, nodes: list[list[Token]], i: int) -> int:
        """Keep the nodes a ``%%comment%%`` is in as one Markdown block.

        Rich text cannot hold a comment, and the page must never show one: the
        block keeps the source (the export writes it back) and renders without
        it. A comment that spans blocks takes every node up to its close.
        Return the index of the next node to convert.
        """
        open_ = False
        end = i
        for end in range(i, len(nodes)):
            for token in walk_children(nodes[end]):
                if token.meta and token.meta.get("comment_closes"):
                    open_ = False
                if token.meta and token.meta.get("comment_opens"):
                    open_ = True
            if not open_:
                break
        else:
            self._warn(
                "comment %% is never closed: the rest of the file is hidden, as "
                "Obsidian hides it",
                self._line(nodes[i][0]),
            )
        self._markdown([token for node in nodes[i : end + 1] for token in node])
        return end + 1

    def _line(self, token: Token) -> int:
        return token.map[0] + self.first_line if token.map else self.first_line

    def _warn(self, message: str, line: int | None) -> None:
        self.result.warnings.append(Issue(message, line))

    def _emit(self, type_: str, value: Any, line: int) -> None:
        self._flush()
        if type_ == "markdown":
            value = self.fixer.fix_source(value)
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
            k for k, line in enumerate(self.source_lines) if REGION_END.fullmatch(line)
        ]
        candidates: list[tuple[int, int | None]] = []
        for k, line in enumerate(self.source_lines):
            if _REGION_LINE.match(line):
                at = bisect.bisect_right(closings, k)
                candidates.append((k, closings[at] if at < len(closings) else None))
        excluded: set[int] = set()
        parses = 0
        while True:
            lines = list(self.source_lines)
            taken: list[tuple[int, int | None]] = []
            covered = -1  # the last line inside a region taken so far
            for start, end in candidates:
                if start in excluded or start <= covered:
                    continue
                taken.append((start, end))
                covered = len(lines) - 1 if end is None else end
                for k in range(start + 1, covered + 1):
                    lines[k] = ""
            self.env = {"max_nesting": self.max_nesting}
            tokens = parse_markdown("\n".join(lines), self.env)
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
                self.result.errors.append(
                    Issue(
                        f"<!-- block:{match.group(1)} --> is never closed by <!-- /block -->",
                        start + self.first_line,
                    )
                )
                end = len(lines)
            content = "\n".join(self.source_lines[start + 1 : end])
            self.regions[start] = Region(
                match.group(1).lower(), html_attrs(match.group(2)), content, start
            )
        return tokens

    def _drop_placeholders(self) -> None:
        """Drop template placeholders from the text (not code, not math); warn."""
        for token in self.tokens:
            if token.type != "inline" or not token.children:
                continue
            line = self._line(token)
            for child in token.children:
                if child.type == "text" and PLACEHOLDER.search(child.content):
                    for found in PLACEHOLDER.findall(child.content):
                        self._warn(
                            f"template placeholder {found} dropped: the old "
                            "site's theme filled it in",
                            line,
                        )
                    child.content = PLACEHOLDER.sub("", child.content)
                elif child.type in ("softbreak", "hardbreak"):
                    line += 1

    def _collect_formulas(self, tokens: Sequence[Token], first_line: int) -> None:
        """List every formula in ``tokens`` with the file line it is on.

        A formula KaTeX rejects is repaired in its token where undoing Markdown
        escapes makes it valid; one that stays invalid is kept and reported.
        """
        for token in tokens:
            line = token.map[0] + first_line if token.map else first_line
            is_math_fence = (
                token.type == "fence" and _fence_language(token.info).lower() == "math"
            )
            if token.type in MATH_BLOCKS or is_math_fence:
                self._formula(token, True, line)
            elif token.type == "inline":
                for child in token.children or ():
                    if child.type == "math_inline":
                        self._formula(child, False, line)
                    elif child.type == "math_inline_double":
                        self._formula(child, True, line)
                    elif child.type == "shortcode_icon":
                        self._warn(f"icon shortcode dropped: {child.markup}", line)
                    elif child.type == "text" and "[^" in child.content:
                        for label in _UNDEFINED_NOTE.findall(child.content):
                            self._warn(
                                f"footnote [^{label}] has no definition; kept as text",
                                line,
                            )
                    line += child.content.count("\n")
                    if child.type in ("softbreak", "hardbreak"):
                        line += 1

    def _formula(self, token: Token, display: bool, line: int) -> None:
        """Check (and repair) one formula's token, and list it."""
        token.content, error = self.fixer.fix(token.content, display)
        self.result.formulas.append(Formula(token.content, display, line, error))
        if error is None:
            return
        message = f"formula kept with an error: {' '.join(error.split())}"
        if is_bound_error(error):
            # KaTeX's own messages show where the error is; these name no place.
            message += f": {_excerpt(token.content)}"
        self._warn(message, line)

    def _collect_footnotes(self) -> None:
        """Map each footnote label to the source lines of its definition."""
        label = None
        start = end = 0
        for token in self.tokens:
            if token.type == "footnote_open":
                label, start, end = token.meta.get("label"), 10**9, -1
                self.note_tokens[label] = []
            elif token.type == "footnote_close" and label is not None:
                if end >= 0:
                    self.footnotes[label] = (start, end)
                elif (found := self._definition_line(label)) is not None:
                    self.footnotes[label] = (found, found + 1)
                    self.empty_notes.add(label)
                label = None
            elif label is not None:
                self.note_tokens[label].append(token)
                if token.map:
                    start, end = min(start, token.map[0]), max(end, token.map[1])

    def _definition_line(self, label: str) -> int | None:
        """Return the 0-based line defining footnote ``label``, or None."""
        return next(
            (
                n
                for n, text in enumerate(self.source_lines)
                if text.lstrip().startswith(f"[^{label}]:")
            ),
            None,
        )

    def _heading_notes(self) -> None:
        """Show after the body the notes headings refer to, as ``[label] text``.

        A heading is plain text and cannot hold a footnote: it keeps the marker
        ``[label]`` (see `InlineConverter.text`), and the note is not lost.
        """
        for label, line in self.heading_notes.items():
            if label in self.shown_notes:
                continue
            inlines = [
                token
                for token in self.note_tokens.get(label, ())
                if token.type == "inline"
            ]
            if not inlines:
                self._warn(f"footnote [^{label}] in a heading has no text", line)
                continue
            for index, token in enumerate(inlines):
                at = self._line(token)
                pieces = self.inline.pieces(token.children or [], at, token.content)
                if index == 0:
                    pieces.insert(0, escape_text(f"[{label}] "))
                self._pieces(pieces, at)

    # Prose -------------------------------------------------------------------

    def _heading(self, node: list[Token]) -> None:
        line = self._line(node[0])
        children, images = _heading_images(node[1].children or [], line)
        self._heading_text(node, children, line)
        # A heading is plain text: its images (an author's photo beside the
        # name, a logo) are image blocks right after it.
        for image in images:
            self._image(image)

    def _heading_text(
        self, node: list[Token], children: list[Token], line: int
    ) -> None:
        level = int(node[0].tag[1])
        text = self.inline.text(children, node[1].content)
        for label in self._footnote_labels(node):
            self.heading_notes.setdefault(label, line)
        if level == 1 and not self.h1_seen:
            self.h1_seen = True
            if _holds_comment(node):
                self._warn("a %%comment%% in the title heading is left out", line)
            if self.title is None:
                # Only a heading that opens the file titles it (as the old site
                # read it); a later one is a heading like any other.
                if self.at_start:
                    self.result.h1 = text
                    return
            elif _same_title(text, self.title):
                return
        if not text:
            return
        if len(text) > HEADING_MAX_LENGTH:
            self._warn(
                f"heading longer than {HEADING_MAX_LENGTH} characters; "
                "imported as a bold paragraph",
                line,
            )
            self._add_prose(f"<p><b>{html.escape(text, quote=False)}</b></p>", line)
            return
        tag = "h2" if level <= 2 else "h3" if level == 3 else "h4"
        self._emit("heading", {"text": text, "level": tag}, line)

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
        if self._note(inline.content, line):
            return
        self._pieces(self.inline.pieces(children, line, inline.content), line)

    def _note(self, source: str, line: int) -> bool:
        """Emit a note block for a paragraph that is one embed, ``![[note#heading]]``.

        Return whether it was one. The page it names is found once every page
        exists (a `LinkRef` marked ``embed``); an alias is not kept, as the
        block shows the post's own title.
        """
        match = WIKILINK.fullmatch(source.strip())
        if match is None or not match.group(1):
            return False
        wiki = parse_wikilink(match.group(2))
        if not is_note_target(wiki.target):
            return False
        label = escape_text(wiki.label)
        self.collector.links.append(
            LinkRef(wiki.target, True, label, wiki.label, line, embed=True)
        )
        slot = PageSlot(len(self.collector.links) - 1)
        self._emit("note", {"page": slot, "heading": wiki.heading[:255]}, line)
        return True

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
                self._math(piece.tex, "", piece.line)
            else:
                self._image(piece)
        self._prose_paragraph(run, line)

    def _prose_paragraph(self, run: list[str], line: int) -> None:
        markup = EDGE_BREAKS.sub("", "".join(run))
        if markup:
            self._add_prose(f"<p>{markup}</p>", line)

    # Other blocks ---------------------------------------------------------

    def _table(self, node: list[Token]) -> None:
        line = self._line(node[0])
        if self._footnote_labels(node) or _shows_image(node):
            # A table block's cells are plain text: a Markdown block keeps both.
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
        if written.lower() == DIAGRAM_LANGUAGE:
            self._diagram(token.content, line)
            return
        language = normalise_language(written)
        key = written.strip().lower().lstrip(".")
        if language not in LANGUAGE_NAMES or (language == "text" and key):
            if key and key not in _TEXT_NAMES:
                self._warn(f"unknown code language {written!r}; imported as text", line)
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

    def _diagram(self, source: str, line: int) -> None:
        source = source.removesuffix("\n")
        if not source.strip():
            self._warn("empty mermaid diagram dropped", line)
            return
        self._emit("diagram", {"source": source}, line)

    def _math(self, tex: str, label: str, line: int) -> None:
        tex = tex.strip()
        if not tex:
            return
        numbered = self.numbered and not label
        value = {"tex": tex, "label": label[:32], "numbered": numbered}
        self._emit("math", value, line)

    # Block regions ---------------------------------------------------------

    def _region(self, region: Region, line: int) -> None:
        """Emit a `<!-- block:TYPE -->` region through the reader of its block type."""
        reader = REGION_READERS.get(region.type)
        if reader is None:
            self._warn(f"unknown block type {region.type!r}; kept as Markdown", line)
            reader = REGION_READERS["markdown"]
        reader(self, region, line)

    def _html_figure_region(self, region: Region, line: int) -> None:
        try:
            height = int(region.attrs.get("height", DEFAULT_FIGURE_HEIGHT))
        except ValueError:
            height = DEFAULT_FIGURE_HEIGHT
        caption = self._caption_formulas(region.attrs.get("caption", ""), line)
        self._figure(region.content, height, caption, line, images=True)

    def _markdown_region(self, region: Region, line: int) -> None:
        if not region.content.strip():
            return
        tokens = parse_markdown(region.content)
        self._collect_formulas(tokens, line + 1)
        # Verbatim: the lines between the comments, so a value round-trips exactly;
        # only the images it shows are put in the media library.
        self._emit("markdown", self._markdown_images(region.content, line + 1), line)


# The reader of each `<!-- block:TYPE -->` region, by block name: the way back
# from the verbatim form vault.exporter writes. Other blocks are read from the
# Markdown syntax they are written in (headings, fences, $$, tables, > [!NOTE]).
REGION_READERS: dict[str, Callable[[_BodyParser, Region, int], None]] = {
    "html_figure": _BodyParser._html_figure_region,
    "markdown": _BodyParser._markdown_region,
}


def _shows_image(node: Sequence[Token]) -> bool:
    """Return True if ``node`` shows an image (``![]()``, ``![[x.png]]``, ``<img>``)."""
    for token in walk_children(node):
        if token.type == "image" or (
            token.type == "html_inline" and IMG_TAG.search(token.content)
        ):
            return True
        if token.type == "text" and any(
            match.group(1)
            and match.group(2).split("|")[0].strip().lower().endswith(IMAGE_SUFFIXES)
            for match in WIKILINK.finditer(token.content)
        ):
            return True
    return False


def _heading_images(
    children: Sequence[Token], line: int
) -> tuple[list[Token], list[ImageRef]]:
    """Split a heading's inline tokens into its text and the images it shows.

    ``![alt](src)``, ``<img src>`` and ``![[name.png]]`` are taken out (their
    alt text too), so the heading keeps only its words.
    """
    kept: list[Token] = []
    images: list[ImageRef] = []
    for token in children:
        if token.type == "image":
            alt = re.sub(r"\\([][])", r"\1", token.content)
            images.append(
                ImageRef(
                    token.attrGet("src") or "",
                    alt,
                    token.attrGet("title") or "",
                    line,
                    attr_width(token.meta.get("width")),
                )
            )
            continue
        if token.type == "html_inline" and IMG_TAG.fullmatch(token.content.strip()):
            attrs = html_attrs(token.content)
            if attrs.get("src"):
                images.append(
                    ImageRef(
                        attrs["src"], attrs.get("alt", ""), attrs.get("title", ""), line
                    )
                )
            continue
        if token.type == "text" and "![[" in token.content:

            def embed(match: re.Match) -> str:
                wiki = parse_wikilink(match.group(2))
                if not match.group(1) or not wiki.target.lower().endswith(
                    IMAGE_SUFFIXES
                ):
                    return match.group(0)
                width = embed_width(wiki.text)
                alt = "" if width else wiki.text
                images.append(ImageRef(wiki.target, alt, "", line, width))
                return ""

            token = token.copy(content=WIKILINK.sub(embed, token.content))
        kept.append(token)
    return kept, images


def _first_group(match: re.Match | None) -> str:
    if match is None:
        return ""
    return next((g for g in match.groups() if g is not None), "")
