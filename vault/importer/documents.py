"""Wagtail documents made from a vault's attachments, found again by their content."""

from __future__ import annotations

import hashlib
import html
import io
from pathlib import Path

from django.core.files import File
from wagtail.documents import get_document_model

from .inline import ATTACHMENT_MARKER, AttachmentRef


class DocumentStore:
    """Wagtail documents by content, created on first use, never duplicated.

    As `images.ImageStore`: documents made inside a file's transaction are
    forgotten (their files deleted) when it is rolled back; a dry run writes
    no file.
    """

    def __init__(self, *, dry_run: bool) -> None:
        self.model = get_document_model()
        self.dry_run = dry_run
        self.by_hash: dict[str, int] = {}
        self.created = 0
        self._new: list[tuple[str, str | None]] = []

    def get(self, path: Path) -> int:
        """Return the pk of the document with ``path``'s content; raise OSError."""
        data = path.read_bytes()
        digest = hashlib.sha1(data, usedforsecurity=False).hexdigest()  # as Wagtail's
        if digest in self.by_hash:
            return self.by_hash[digest]
        existing = (
            self.model.objects.filter(file_hash=digest)
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
        )
        if existing is not None:
            self.by_hash[digest] = existing
            return existing
        fields = {"title": path.stem[:255], "file_size": len(data), "file_hash": digest}
        field = self.model._meta.get_field("file")
        name = field.generate_filename(self.model(**fields), path.name)
        if not self.dry_run:
            name = field.storage.save(
                name, File(io.BytesIO(data)), max_length=field.max_length
            )
        document = self.model(file=name, **fields)
        try:
            document.save()
        except Exception:
            if not self.dry_run:
                field.storage.delete(name)
            raise
        self._new.append((digest, None if self.dry_run else name))
        self.by_hash[digest] = document.pk
        self.created += 1
        return document.pk

    def commit(self) -> None:
        self._new.clear()

    def rollback(self) -> None:
        storage = self.model._meta.get_field("file").storage
        for digest, name in self._new:
            self.by_hash.pop(digest, None)
            self.created -= 1
            if name:
                storage.delete(name)
        self._new.clear()


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
