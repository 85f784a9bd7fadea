"""An embedded note: a paragraph that is one ``![[note#heading]]``."""

from __future__ import annotations

from ..inline import LinkRef, escape_text, is_note_target
from ..links import WIKILINK, parse_wikilink
from ..parsed import PageSlot
from .context import BodyContext


def note(ctx: BodyContext, source: str, line: int) -> bool:
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
    ctx.collector.links.append(
        LinkRef(wiki.target, True, label, wiki.label, line, embed=True)
    )
    slot = PageSlot(len(ctx.collector.links) - 1)
    ctx.emit("note", {"page": slot, "heading": wiki.heading[:255]}, line)
    return True
