"""Plain text of a post body, from the stored JSON: no rendering, no queries."""

from wagtail.rich_text import get_text_for_indexing

_RICH_TEXT_FIELDS = {"paragraph": None, "callout": ("body",), "quote": ("quote",)}
_TEXT_FIELDS = {
    "heading": ("text",),
    "code": ("filename", "code"),
    "math": ("tex", "label"),
    "image": ("alt", "caption"),
    "callout": ("title",),
    "quote": ("source",),
    "html_figure": ("caption",),  # Its HTML source is markup, not prose.
}


def _block_text(block_type: str, value) -> list[str]:
    if block_type == "paragraph":
        return [get_text_for_indexing(value or "")]
    if block_type == "markdown":
        return [value or ""]
    if block_type == "table":
        value = value or {}
        cells = [c for row in value.get("data") or [] for c in row or [] if c]
        return [value.get("table_caption") or "", *map(str, cells)]
    if not isinstance(value, dict):
        return []
    texts = [str(value.get(name) or "") for name in _TEXT_FIELDS.get(block_type, ())]
    texts += [
        get_text_for_indexing(value.get(name) or "")
        for name in _RICH_TEXT_FIELDS.get(block_type) or ()
    ]
    return texts


def body_text(stream_value) -> str:
    """Return the readable text of a body: prose, headings, code, TeX, captions."""
    texts = []
    for item in stream_value.raw_data:
        texts.extend(_block_text(item.get("type", ""), item.get("value")))
    return " ".join(" ".join(t.split()) for t in texts if t)
