"""Wagtail images made from a vault's files, found again by their content."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image as PILImage
from PIL import UnidentifiedImageError
from wagtail.images import get_image_model

from blog.svg import svg_size

from .stored import StoredFiles


class ImageStore(StoredFiles):
    """Wagtail images by content (see `StoredFiles`)."""

    def __init__(self, *, dry_run: bool) -> None:
        super().__init__(get_image_model(), dry_run=dry_run)

    def get(self, path: Path, title: str) -> int:
        """Return the pk of the image with ``path``'s content; raise ValueError."""
        return self.add(path.read_bytes(), path.name, title)

    def add(self, data: bytes, name: str, title: str) -> int:
        """Return the pk of the image of ``data`` (a file called ``name``).

        Raise ValueError if Pillow cannot read it as an image, or a ``.svg``
        is not a well-formed SVG drawing. An SVG is kept as it is: a page
        shows it as ``<img>``, where none of its scripts run.
        """
        digest = self.digest(data)
        existing = self.existing(digest)
        if existing is not None:
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
        return self.create(data, name, fields)
