"""Obsidian's ``%%comments%%``: the author's private notes, never shown.

``%%`` opens a comment and the next ``%%`` closes it, within a line, across
lines, or across blocks::

    A sentence %%with a note to self%% goes on.

    %%
    A whole passage kept out of the page,

    over several paragraphs.
    %%

A comment is a token of type ``COMMENT`` that renders to nothing and that
whatever reads text out of tokens (headings' anchors, search, feeds) skips,
as it skips every type it does not know. Inside code and math ``%%`` is text:
those are read before a comment could start. A comment never closed hides
the rest of the document, as Obsidian does.

A comment that spans blocks starts in one inline token and ends in a later
one: the first is marked ``meta["comment_opens"]``, the last
``meta["comment_closes"]``, and every block between becomes a ``COMMENT``
token too. The blocks around them stay whole, so the HTML stays balanced.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

COMMENT = "obsidian_comment"
MARKER = "%%"


def _inline(state: StateInline, silent: bool) -> bool:
    """Read ``%%…%%`` (or ``%%…`` to the end of the inline text) as a comment."""
    if not state.src.startswith(MARKER, state.pos):
        return False
    start = state.pos + len(MARKER)
    end = state.src.find(MARKER, start, state.posMax)
    closed = end != -1
    if not closed:
        end = state.posMax
    if not silent:
        token = state.push(COMMENT, "", 0)
        token.content = state.src[start:end]
        token.markup = MARKER
        token.meta = {"closed": closed}
    state.pos = end + len(MARKER) if closed else state.posMax
    return True


def _has_comment(token: Token) -> bool:
    return token.type == "inline" and any(
        child.type == COMMENT for child in token.children or ()
    )


def _left_open(inline: Token) -> bool:
    """Return whether ``inline`` ends inside a comment it opened."""
    children = inline.children or []
    return (
        bool(children)
        and children[-1].type == COMMENT
        and not children[-1].meta.get("closed")
    )


def _blank(inline: Token) -> bool:
    """Return whether ``inline`` shows nothing once its comments are hidden."""
    return all(
        child.type in (COMMENT, "softbreak", "hardbreak")
        or (child.type == "text" and not child.content.strip())
        for child in inline.children or ()
    )


def _partners(tokens: list[Token]) -> list[int]:
    """Return, for each token, the index of its matching open or close (else itself)."""
    partner = list(range(len(tokens)))
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.nesting == 1:
            stack.append(index)
        elif token.nesting == -1 and stack:
            opened = stack.pop()
            partner[opened], partner[index] = index, opened
    return partner


def _hide(tokens: list[Token], partner: list[int], start: int, end: int) -> None:
    """Hide ``tokens[start:end + 1]``, and the blocks that would be left empty.

    The blocks around the span that hold something outside it stay whole: a
    close whose open comes before the span, an open whose close comes after.
    """
    while start > 0 and tokens[start - 1].nesting == 1:
        start -= 1
    while end + 1 < len(tokens) and tokens[end + 1].nesting == -1:
        end += 1
    for index in range(start, end + 1):
        token = tokens[index]
        if (token.nesting == -1 and partner[index] < start) or (
            token.nesting == 1 and partner[index] > end
        ):
            continue
        token.type = COMMENT
        token.tag = ""
        token.children = None
        token.hidden = True


def _hide_comments(state: StateCore) -> None:
    """Hide blocks that hold only comments, and what a comment spans across blocks."""
    tokens = state.tokens
    partner = _partners(tokens)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if not _has_comment(token):
            index += 1
            continue
        start = index if _blank(token) else index + 1
        if not _left_open(token):
            if start == index:
                _hide(tokens, partner, index, index)
            index += 1
            continue
        token.meta["comment_opens"] = True
        closer = next(
            (
                i
                for i in range(index + 1, len(tokens))
                if tokens[i].type == "inline" and MARKER in tokens[i].content
            ),
            None,
        )
        if closer is None:
            _hide(tokens, partner, start, len(tokens) - 1)
            return
        inline = tokens[closer]
        inline.meta["comment_closes"] = True
        inline.content = inline.content.split(MARKER, 1)[1]
        inline.children = []
        state.md.inline.parse(inline.content, state.md, state.env, inline.children)
        _hide(tokens, partner, start, closer if _blank(inline) else closer - 1)
        # What follows the close may hold comments of its own.
        index = closer


def comment_plugin(md: MarkdownIt) -> None:
    """Teach ``md`` Obsidian's ``%%comments%%``, rendered as nothing."""
    md.inline.ruler.before("backticks", "obsidian_comment", _inline)
    md.core.ruler.push("obsidian_comments", _hide_comments)
    md.add_render_rule(COMMENT, lambda *args: "")
