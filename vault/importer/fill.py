"""Put the pages and images a parsed body refers to in place of its placeholders."""

from __future__ import annotations

from typing import Any

from .inline import LINK_MARKER, LinkRef
from .parsed import ImageSlot, ParsedBody
from .records import PageInfo


def body_raw(
    body: ParsedBody, resolved: list[PageInfo | None], image_pks: list[int | None]
) -> tuple[list[dict], list[int]]:
    """Return the raw StreamField data of a body, and each block's source line.

    Image blocks whose file could not be imported are left out.
    """
    raw, lines = [], []
    for block in body.blocks:
        if block.type == "image" and image_pks[block.value["image"].index] is None:
            continue
        value = finish(block.value, body.links, resolved, image_pks)
        raw.append({"type": block.type, "value": value})
        lines.append(block.line)
    return raw, lines


def finish(
    value: Any,
    links: list[LinkRef],
    resolved: list[PageInfo | None],
    image_pks: list[int | None],
) -> Any:
    """Return ``value`` with link markers and image slots replaced.

    A resolved link becomes a page link (rich text) or a URL (Markdown); an
    unresolved one becomes its text.
    """
    if isinstance(value, str):
        return LINK_MARKER.sub(
            lambda m: link_markup(links[int(m.group(1))], resolved[int(m.group(1))]),
            value,
        )
    if isinstance(value, list):
        return [finish(item, links, resolved, image_pks) for item in value]
    if isinstance(value, dict):
        return {k: finish(v, links, resolved, image_pks) for k, v in value.items()}
    if isinstance(value, ImageSlot):
        return image_pks[value.index]
    return value


def link_markup(ref: LinkRef, page: PageInfo | None) -> str:
    if ref.markdown:
        return f"[{ref.label_text}]({page.url})" if page else ref.label_text
    if page is None:
        return ref.label_html
    return f'<a linktype="page" id="{page.pk}">{ref.label_html}</a>'
