"""A post embedded in another (Obsidian's ``![[note]]``): its body or one section.

The embedded post is rendered inside the embedding one, so it is part of that
page's render cache entry and page cache; publishing the embedded post purges
every page that embeds it (``blog.models.changes.embedding_paths``).
"""

from types import SimpleNamespace

from django.contrib.auth.models import AnonymousUser
from django.utils.html import format_html
from wagtail import blocks
from wagtail.blocks.stream_block import StreamValue

from rendering import slugify_anchor

from .base import GROUP_TEXT, Text, inline_html, public_paths
from .outline import body_anchors, body_headings

# Embeds inside embeds are followed this many levels deep, the embedding page
# counted as the first.
MAX_DEPTH = 4
# A reader who has passed no password and is not logged in: what a rendered
# body shows is kept for every reader of the embedding page alike.
_ANYONE = SimpleNamespace(session={}, user=AnonymousUser(), COOKIES={})


class NoteBlock(blocks.StructBlock):
    """Another post shown inline, whole or one section, framed with its title."""

    page = blocks.PageChooserBlock(
        label="文章", page_type="blog.PostPage", help_text="要嵌入的文章"
    )
    heading = blocks.CharBlock(
        label="章节",
        required=False,
        max_length=255,
        help_text="只嵌入这个标题下的一节（写标题文字）；留空则嵌入全文",
    )

    class Meta:
        icon = "doc-full-inverse"
        template = "blocks/note_block.html"
        # The chooser's preview has no post to embed: a sample frame.
        preview_template = "blocks/note_block_preview.html"
        group = GROUP_TEXT
        description = "嵌入另一篇文章（全文或其中一节），随原文更新"
        preview_value = {"page": None, "heading": ""}
        text = {"page": Text.NONE, "heading": Text.LABEL}

    def render(self, value, context=None):
        note = embedded(value, context or {})
        if note["state"] == "hidden":
            # A draft, a private or a deleted post: nothing of it, not its name.
            return ""
        if note["state"] != "shown":
            note["notice"] = note_notice(note["state"], note["heading"])
        note["heading_html"] = inline_html(note["heading"], context)
        return super().render(value, {**(context or {}), "note": note})


def shown_to_anyone(page) -> bool:
    """Whether ``page`` may be shown to every reader (``blog.models.base.may_see``)."""
    from blog.models.base import may_see

    return may_see(_ANYONE, page)


def embedded(value, parent: dict) -> dict:
    """Return what the note block shows: ``state``, ``title``, ``url``, ``html``.

    ``state`` is ``shown`` (``html`` is the embedded body or section), ``loop``
    (the post embeds itself, through others or straight), ``deep`` (more than
    MAX_DEPTH levels), ``no_section`` (no such heading) or ``hidden``.
    """
    page = value.get("page")
    if page is None or not shown_to_anyone(page):
        return {"state": "hidden"}
    page = page.specific
    request = parent.get("request")
    url = page.get_url(request) or ""
    shown = {"title": page.title, "url": url, "html": "", "heading": ""}
    host = parent.get("page")
    chain = parent.get("embedding") or ((host.pk,) if host is not None else ())
    if page.pk in chain:
        return {**shown, "state": "loop"}
    if len(chain) >= MAX_DEPTH:
        return {**shown, "state": "deep"}
    body = page.body
    wanted = (value.get("heading") or "").strip()
    start, end = 0, len(body)
    if wanted:
        found = find_section(body, wanted)
        if found is None:
            return {**shown, "state": "no_section", "heading": wanted}
        start, end, anchor, text = found
        shown.update(url=f"{url}#{anchor}", heading=text)
    part = StreamValue(body.stream_block, list(body.raw_data)[start:end], is_lazy=True)
    inner = {
        **parent,
        "embedding": (*chain, page.pk),
        # The embedded headings' ids, unique in the embedding page.
        "anchor_prefix": f"{parent.get('anchor_prefix', '')}embed-{page.pk}-",
        # Its figures are served under its own URL.
        "figures_at": page.figures_at(request) if parent.get("figures_at") else None,
    }
    html = body.stream_block.render(part, context=inner)
    return {**shown, "state": "shown", "html": html}


def find_section(body, heading: str) -> tuple[int, int, str, str] | None:
    """Return (first block, end block, anchor, text) of the section ``heading`` names.

    Found by its text, as Obsidian finds ``![[note#heading]]``, or by its anchor;
    it runs to the next heading of the same or a higher level. A heading inside
    a Markdown block takes that whole block.
    """
    headings = body_headings(body)
    anchors = [a for block in body_anchors(body).values() for a in block]
    wanted = " ".join(heading.split()).casefold()
    slug = slugify_anchor(heading)
    for position, ((index, level, text), anchor) in enumerate(
        zip(headings, anchors, strict=True)
    ):
        if " ".join(text.split()).casefold() != wanted and slug not in (
            anchor,
            slugify_anchor(text),
        ):
            continue
        end = len(body)
        for later_index, later_level, _ in headings[position + 1 :]:
            if later_level <= level:
                end = max(later_index, index + 1)
                break
        return index, end, anchor, text
    return None


def note_notice(state: str, heading: str = "") -> str:
    """Return why an embed is shown as a link only."""
    if state == "loop":
        return "循环嵌入，未展开"
    if state == "deep":
        return "嵌套过深，未展开"
    return format_html("未找到章节「{}」", heading)


DECONSTRUCT_ALIASES = public_paths(NoteBlock)
