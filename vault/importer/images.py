"""Wagtail images made from a vault's files, found again by their content."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from django.core.files import File
from PIL import Image as PILImage
from PIL import UnidentifiedImageError
from wagtail.images import get_image_model

from blog.svg import svg_size


class ImageStore:
    """Wagtail images by content, created on first use, never duplicated.

    Images made inside a file's transaction are forgotten (and their files
    deleted from storage) when that transaction is rolled back. A dry run
    writes no files at all.
    """

    def __init__(self, *, dry_run: bool) -> None:
        self.model = get_image_model()
        self.dry_run = dry_run
        self.by_hash: dict[str, int] = {}
        self.created = 0
        self._new: list[tuple[str, str | None]] = []

    def get(self, path: Path, title: str) -> int:
        """Return the pk of the image with ``path``'s content; raise ValueError."""
        return self.add(path.read_bytes(), path.name, title)

    def add(self, data: bytes, name: str, title: str) -> int:
        """Return the pk of the image of ``data`` (a file called ``name``).

        Raise ValueError if Pillow cannot read it as an image, or a ``.svg``
        is not a well-formed SVG drawing. An SVG is kept as it is: a page
        shows it as ``<img>``, where none of its scripts run.
        """
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
        if name.lower().endswith(".svg"):
            width, height = svg_size(data, name)
        else:
            try:
                with PILImage.open(io.BytesIO(data)) as picture:
                    width, height = picture.size
                    picture.verify()
            except (UnidentifiedImageError, OSError, SyntaxError) as error:
                raise ValueError(f"{name} is not an image Pillow can read") from error
        fields = {
            "title": (title or Path(name).stem)[:255],
            "width": width,
            "height": height,
            "file_size": len(data),
            "file_hash": digest,
        }
        field = self.model._meta.get_field("file")
        name = field.generate_filename(self.model(**fields), name)
        if not self.dry_run:  # a dry run writes no file
            # Stored here and the image made with its name: assigning the file
            # to the image would have Django decode it (twice) for the size
            # Pillow read above.
            name = field.storage.save(
                name, File(io.BytesIO(data)), max_length=field.max_length
            )
        image = self.model(file=name, **fields)
        try:
            image.save()
        except Exception:
            if not self.dry_run:
                field.storage.delete(name)
            raise
        self._new.append((digest, None if self.dry_run else name))
        self.by_hash[digest] = image.pk
        self.created += 1
        return image.pk

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
