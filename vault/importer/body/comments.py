"""Obsidian's ``%%comments%%``: the nodes a comment is in become a Markdown block."""

from __future__ import annotations

from markdown_it.token import Token

from rendering.obsidian_comments import COMMENT

from ..tokens import walk_children
from .context import BodyContext
from .fallback import markdown


def holds_comment(node: list[Token]) -> bool:
    """Return whether ``node`` has an Obsidian ``%%comment%%`` in it, or is one."""
    return any(
        token.type == COMMENT or (token.meta and "comment_closes" in token.meta)
        for token in walk_children(node)
    )


def commented(ctx: BodyContext, nodes: list[list[Token]], i: int) -> int:
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
        ctx.warn(
            "comment %% is never closed: the rest of the file is hidden, as "
            "Obsidian hides it",
            ctx.line(nodes[i][0]),
        )
    markdown(ctx, [token for node in nodes[i : end + 1] for token in node])
    return end + 1
