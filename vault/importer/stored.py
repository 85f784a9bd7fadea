"""Wagtail media (images, documents) made from a vault's files, found by content."""

from __future__ import annotations

import hashlib
import io

from django.core.files import File


class StoredFiles:
    """Media objects by content, created on first use, never duplicated.

    Objects made inside a file's transaction are forgotten (and their files
    deleted from storage) when that transaction is rolled back. A dry run
    writes no files at all.
    """

    def __init__(self, model, *, dry_run: bool) -> None:
        self.model = model
        self.dry_run = dry_run
        self.by_hash: dict[str, int] = {}
        self.created = 0
        self._new: list[tuple[str, str | None]] = []

    @staticmethod
    def digest(data: bytes) -> str:
        """Return the hash Wagtail keeps in ``file_hash``."""
        return hashlib.sha1(data, usedforsecurity=False).hexdigest()

    def existing(self, digest: str) -> int | None:
        """Return the pk of the object with this content, if there is one."""
        if digest in self.by_hash:
            return self.by_hash[digest]
        pk = (
            self.model.objects.filter(file_hash=digest)
            .order_by("pk")
            .values_list("pk", flat=True)
            .first()
        )
        if pk is not None:
            self.by_hash[digest] = pk
        return pk

    def create(self, data: bytes, name: str, fields: dict) -> int:
        """Store ``data`` as a file called ``name`` and return the new object's pk.

        ``fields`` hold ``file_hash`` and the model's other columns. The file
        is stored first and the object made with its name: assigning it would
        have Django read it again (and decode an image twice for its size).
        """
        field = self.model._meta.get_field("file")
        name = field.generate_filename(self.model(**fields), name)
        if not self.dry_run:  # a dry run writes no file
            name = field.storage.save(
                name, File(io.BytesIO(data)), max_length=field.max_length
            )
        made = self.model(file=name, **fields)
        try:
            made.save()
        except Exception:
            if not self.dry_run:
                field.storage.delete(name)
            raise
        self._new.append((fields["file_hash"], None if self.dry_run else name))
        self.by_hash[fields["file_hash"]] = made.pk
        self.created += 1
        return made.pk

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
