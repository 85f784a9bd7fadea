"""A diagram: a ``mermaid`` fence, kept as its source for the diagram block."""

from __future__ import annotations

from markdown_it.token import Token

from .context import BodyContext


def diagram(ctx: BodyContext, token: Token) -> None:
    line = ctx.line(token)
    source = token.content.removesuffix("\n")
    if not source.strip():
        ctx.warn("empty mermaid diagram dropped", line)
        return
    ctx.emit("diagram", {"source": source}, line)
