"""Put the pages and images a parsed body refers to in place of its placeholders."""

from __future__ import annotations

from typing import Any

from .inline import LINK_MARKER, LinkRef
from .parsed import IMAGE_MARKER, ImageSlot, LocalImage, PageSlot, ParsedBody
from .records import PageInfo


def body_raw(
    body: ParsedBody, resolved: list[PageInfo | None], image_pks: list[int | None]
) -> tuple[list[dict], list[int]]:
    """Return the raw StreamField data of a body, and each block's source line.

    Image blocks whose file could not be imported are left out; a remote image
    not downloaded is shown from its URL. A note block whose post is not found
    (or is not a post) is a paragraph with its link, or its text.
    """
    raw, lines = [], []
    for block in body.blocks:
        if block.type == "note":
            index = block.value["page"].index
            ref, page = body.links[index], resolved[index]
            if page is None or not ref.embed:
                markup = f"<p>{link_markup(ref, page)}</p>"
                raw.append({"type": "paragraph", "value": markup})
                lines.append(block.line)
                continue
        if block.type == "image":
            pk = image_pks[block.value["image"].index]
            if pk is None and not block.value.get("url"):
                continue
        value = finish(block.value, body.links, resolved, image_pks, body.images)
        if block.type == "image" and value["image"] is not None:
            value["url"] = ""  # downloaded: the library image is what shows
        raw.append({"type": block.type, "value": value})
        lines.append(block.line)
    return raw, lines


def finish(
    value: Any,
    links: list[LinkRef],
    resolved: list[PageInfo | None],
    image_pks: list[int | None],
    images: list[LocalImage] | None = None,
) -> Any:
    """Return ``value`` with link markers and image slots replaced.

    A resolved link becomes a page link (rich text) or a URL (Markdown); an
    unresolved one becomes its text. An image in Markdown source becomes
    ``image:ID`` (see `rendering.library_image_ids`), or stays as written when
    it could not be imported.
    """
    if isinstance(value, str):
        value = LINK_MARKER.sub(
            lambda m: link_markup(links[int(m.group(1))], resolved[int(m.group(1))]),
            value,
        )
        return IMAGE_MARKER.sub(
            lambda m: image_reference(int(m.group(1)), image_pks, images), value
        )
    if isinstance(value, list):
        return [finish(item, links, resolved, image_pks, images) for item in value]
    if isinstance(value, dict):
        return {
            k: finish(v, links, resolved, image_pks, images) for k, v in value.items()
        }
    if isinstance(value, ImageSlot):
        return image_pks[value.index]
    if isinstance(value, PageSlot):
        page = resolved[value.index]
        return page.pk if page is not None else None
    return value


def link_markup(ref: LinkRef, page: PageInfo | None) -> str:
    if ref.markdown:
        return f"[{ref.label_text}]({page.url})" if page else ref.label_text
    if page is None:
        return ref.label_html
    return f'<a linktype="page" id="{page.pk}">{ref.label_html}</a>'


def image_reference(
    index: int, image_pks: list[int | None], images: list[LocalImage] | None
) -> str:
    """Return the destination of a Markdown image: the library's, or as written."""
    pk = image_pks[index] if index < len(image_pks) else None
    if pk is not None:
        return f"image:{pk}"
    return images[index].src if images and index < len(images) else ""
