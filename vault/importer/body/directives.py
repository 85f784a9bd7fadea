"""Directive comments: ``<!-- break -->``, ``label:``, ``numbered``, ``embed:``.

Each acts on the blocks around it: a break ends the paragraph block, a label
or ``numbered`` applies to the next node's display math, an embed is a block.
Any other HTML comment is ignored.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .context import BodyContext


def directive(ctx: BodyContext, content: str, line: int) -> None:
    """Act on a directive comment: break, label, numbered, embed; ignore the rest."""
    body = content[4:]
    body = body[: body.find("-->")] if "-->" in body else body
    body = body.strip()
    if body == "break":
        ctx.flush()
    elif body == "numbered":
        ctx.pending_numbered = True
    elif match := re.fullmatch(r"label\s*:\s*(.+)", body, re.DOTALL):
        ctx.pending_label = match.group(1).strip()
    elif match := re.fullmatch(r"embed\s*:\s*(\S+)", body):
        url = match.group(1)
        parts = urlsplit(url)
        if parts.scheme.lower() in ("http", "https") and parts.netloc:
            ctx.emit("embed", url, line)
        else:
            ctx.warn(f"embed not imported: {url!r} is not an http(s) URL", line)
