"""Wagtail documents made from a vault's attachments, found again by their content."""

from __future__ import annotations

import html
from pathlib import Path

from wagtail.documents import get_document_model

from .inline import ATTACHMENT_MARKER, AttachmentRef
from .stored import StoredFiles


class DocumentStore(StoredFiles):
    """Wagtail documents by content (see `StoredFiles`)."""

    def __init__(self, *, dry_run: bool) -> None:
        super().__init__(get_document_model(), dry_run=dry_run)

    def get(self, path: Path) -> int:
        """Return the pk of the document with ``path``'s content; raise OSError."""
        data = path.read_bytes()
        digest = self.digest(data)
        existing = self.existing(digest)
        if existing is not None:
            return existing
        fields = {"title": path.stem[:255], "file_size": len(data), "file_hash": digest}
        return self.create(data, path.name, fields)


def link_attachments(value, attachments: list[AttachmentRef], pks: list[int | None]):
    """Return a block value with each attachment marker a document link.

    An attachment not imported keeps its link as written.
    """
    if isinstance(value, str):

        def replace(match) -> str:
            index = int(match.group(1))
            ref, pk = attachments[index], pks[index]
            if pk is None:
                return f'<a href="{html.escape(ref.src)}">{ref.label_html}</a>'
            return f'<a linktype="document" id="{pk}">{ref.label_html}</a>'

        return ATTACHMENT_MARKER.sub(replace, value)
    if isinstance(value, list):
        return [link_attachments(item, attachments, pks) for item in value]
    if isinstance(value, dict):
        return {k: link_attachments(v, attachments, pks) for k, v in value.items()}
    return value
