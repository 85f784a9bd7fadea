"""The driver: one pass over a document's nodes, each to its construct's handler.

`NODE_HANDLERS` maps the type of a node's first token to the handler of that
construct; a fence goes on by its language (`FENCE_HANDLERS`). Before the
pass, template placeholders are dropped, formulas checked and footnotes found;
after it, what the body refers to is checked (attachments, footnotes nothing
refers to, the formula limit).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from markdown_it.token import Token

from rendering import DIAGRAM_LANGUAGE
from rendering.parser import MAX_NESTING

from ..assets import AssetFinder
from ..mathfix import FormulaFixer
from ..parsed import ParsedBody
from ..report import Issue
from ..theme import PLACEHOLDER
from ..tokens import fence_language, soft_break_lines, split_nodes
from .callouts import admonition
from .code import code_block, code_fence
from .comments import commented, holds_comment
from .context import BodyContext
from .diagrams import diagram
from .footnotes import collect_footnotes
from .formulas import collect_formulas, math_block, math_fence
from .headings import heading, heading_notes, is_title
from .lists import list_
from .prose import paragraph
from .quotes import blockquote
from .rawhtml import html
from .regions import parse_with_regions
from .tables import table


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
    ctx = BodyContext(
        text,
        first_line,
        title,
        base_dir,
        finder,
        breaks=breaks,
        fixer=FormulaFixer(max_formulas, max_math_seconds),
        max_nesting=min(max_nesting or MAX_NESTING, MAX_NESTING),
    )
    ctx.tokens = parse_with_regions(ctx, text)
    ctx.hard_lines = soft_break_lines(ctx.tokens) if breaks else set()
    return _parse(ctx)


def _parse(ctx: BodyContext) -> ParsedBody:
    if "too_deep" in ctx.env:
        ctx.result.errors.append(
            Issue(
                f"nested too deeply: lists and quotes more than {ctx.max_nesting} "
                "levels deep (VAULT_MAX_NESTING; each list counts two levels, each "
                "quote one); raise VAULT_MAX_NESTING to import it",
                ctx.env["too_deep"] + ctx.first_line,
            )
        )
        return ctx.result
    _drop_placeholders(ctx)
    collect_formulas(ctx, ctx.tokens, ctx.first_line)
    collect_footnotes(ctx)
    nodes = split_nodes(ctx.tokens)
    i = 0
    while i < len(nodes):
        i = _node(ctx, nodes, i)
    heading_notes(ctx)
    ctx.flush()
    for attachment in ctx.result.attachments:
        attachment.path = ctx.local_file(
            attachment.src, attachment.line, "missing attachment"
        )
        if attachment.path is not None:
            ctx.result.assets.add(attachment.path)
    # markdown-it drops definitions nothing refers to; say so.
    refs = ctx.env.get("footnotes", {}).get("refs", {})
    for key, used in refs.items():
        if used == -1:
            label = key.removeprefix(":")
            line = next(
                (
                    n + ctx.first_line
                    for n, text in enumerate(ctx.source_lines)
                    if text.lstrip().startswith(f"[^{label}]:")
                ),
                None,
            )
            ctx.warn(f"footnote [^{label}] is never referenced; dropped", line)
    if ctx.fixer.over_limit:
        limit = ctx.fixer.limit
        ctx.warn(
            f"too many formulas: {ctx.fixer.count:,}, more than the {limit:,} "
            f"VAULT_MAX_POST_FORMULAS allows; the post is imported, but only the "
            f"first {limit:,} were checked (raise VAULT_MAX_POST_FORMULAS to check "
            "them all)",
            None,
        )
    ctx.result.math_out_of_time = ctx.fixer.out_of_time
    return ctx.result


def _node(ctx: BodyContext, nodes: list[list[Token]], i: int) -> int:
    """Convert ``nodes[i]``; return the index of the next node to convert."""
    node = nodes[i]
    ctx.label, ctx.pending_label = ctx.pending_label, ""
    # A `<!-- numbered -->` comment numbers the next node's display math.
    ctx.numbered, ctx.pending_numbered = ctx.pending_numbered, False
    ctx.previous = nodes[i - 1][0].type if i else ""
    ctx.at_start = i == 0
    if holds_comment(node) and not is_title(ctx, node):
        return commented(ctx, nodes, i)
    handler = NODE_HANDLERS.get(node[0].type)
    end = handler(ctx, node) if handler is not None else None
    j = i + 1
    if end is not None:
        # An HTML fragment over blank lines takes the nodes markdown-it made of it.
        while j < len(nodes) and nodes[j][0].map and nodes[j][0].map[0] < end:
            j += 1
    return j


def _fence(ctx: BodyContext, node: list[Token]) -> None:
    """Import a fence by its language: code, display math, or a diagram."""
    token = node[0]
    written = fence_language(token.info.strip())
    FENCE_HANDLERS.get(written.lower(), code_fence)(ctx, token)


def _rule(ctx: BodyContext, node: list[Token]) -> None:
    """A thematic break (``---``) ends the paragraph block."""
    ctx.flush()


def _drop_placeholders(ctx: BodyContext) -> None:
    """Drop template placeholders from the text (not code, not math); warn."""
    for token in ctx.tokens:
        if token.type != "inline" or not token.children:
            continue
        line = ctx.line(token)
        for child in token.children:
            if child.type == "text" and PLACEHOLDER.search(child.content):
                for found in PLACEHOLDER.findall(child.content):
                    ctx.warn(
                        f"template placeholder {found} dropped: the old "
                        "site's theme filled it in",
                        line,
                    )
                child.content = PLACEHOLDER.sub("", child.content)
            elif child.type in ("softbreak", "hardbreak"):
                line += 1


# The handler of each construct, by the type of its node's first token. A
# handler returns None, or (raw HTML) the source line its fragment ends before.
NODE_HANDLERS: dict[str, Callable[[BodyContext, list[Token]], int | None]] = {
    "heading_open": heading,
    "paragraph_open": paragraph,
    "bullet_list_open": list_,
    "ordered_list_open": list_,
    "blockquote_open": blockquote,
    "admonition_open": admonition,
    "table_open": table,
    "fence": _fence,
    "code_block": code_block,
    "math_block": math_block,
    "amsmath": math_block,
    "html_block": html,
    "hr": _rule,
}
# A fence by its language (lowercase); any other is code.
FENCE_HANDLERS: dict[str, Callable[[BodyContext, Token], None]] = {
    "math": math_fence,
    DIAGRAM_LANGUAGE: diagram,
}
