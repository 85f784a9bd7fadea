"""A body's headings and their anchors, read from its blocks."""

from rendering import markdown_headings, unique_anchors


def body_headings(stream_value) -> list[tuple[int, str, str]]:
    """Return (block index, level, text) for every heading of a body, in order.

    Heading blocks and the headings inside Markdown blocks both count.
    """
    headings = []
    for index, child in enumerate(stream_value):
        if child.block_type == "heading":
            headings.append((index, child.value["level"], child.value["text"]))
        elif child.block_type == "markdown":
            headings.extend(
                (index, tag, text) for tag, text in markdown_headings(child.value)
            )
    return headings


def body_anchors(stream_value) -> dict[int, list[str]]:
    """Return the page-unique anchors of each block's headings, by block index."""
    headings = body_headings(stream_value)
    anchors: dict[int, list[str]] = {}
    for (index, _, _), anchor in zip(
        headings, unique_anchors(text for _, _, text in headings), strict=True
    ):
        anchors.setdefault(index, []).append(anchor)
    return anchors
