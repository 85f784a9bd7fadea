"""What parsing a body gives: raw blocks, and what they refer to.

Images and links to other files stay placeholders (`ImageSlot`, link markers)
until the importer has saved the images and pages they stand for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .inline import AttachmentRef, LinkRef
from .report import Issue


@dataclass
class Block:
    """One raw StreamField child: ``{"type": type, "value": value}``, and its line."""

    type: str
    value: Any
    line: int


@dataclass(frozen=True)
class ImageSlot:
    """Stands for `ParsedBody.images[index]` in a block value until it is saved."""

    index: int


@dataclass(frozen=True)
class PageSlot:
    """Stands for the page `ParsedBody.links[index]` leads to, until it is saved."""

    index: int


# Stands for `ParsedBody.images[index]` inside Markdown source, until it is saved.
IMAGE_MARKER = re.compile("\ue003(\\d+)\ue004")


def image_marker(index: int) -> str:
    return f"\ue003{index}\ue004"


@dataclass
class LocalImage:
    """An image a post shows: a file of the vault, or a remote one to download.

    ``src`` is the reference as written, which a Markdown block keeps when the
    image could not be imported. A drawing written in the body (an inline
    ``<svg>``) has no file: its ``data``, stored as a file called ``name``.
    """

    path: Path | None
    alt: str
    caption: str
    line: int
    url: str = ""  # a remote image: downloaded with --fetch-images
    src: str = ""
    data: bytes = b""
    name: str = ""


@dataclass
class Formula:
    """One formula of the source, to check with KaTeX."""

    tex: str
    display: bool
    line: int
    # KaTeX's message, if the formula was kept with an error.
    error: str | None = None


@dataclass
class ParsedBody:
    """What a Markdown body becomes: blocks, and what they refer to."""

    blocks: list[Block] = field(default_factory=list)
    formulas: list[Formula] = field(default_factory=list)
    links: list[LinkRef] = field(default_factory=list)
    attachments: list[AttachmentRef] = field(default_factory=list)
    images: list[LocalImage] = field(default_factory=list)
    assets: set[Path] = field(default_factory=set)
    warnings: list[Issue] = field(default_factory=list)
    errors: list[Issue] = field(default_factory=list)
    # The first `# H1`, when it gave the title (there was none in front matter).
    h1: str | None = None
    # Whether checking formulas took all the seconds allowed, some left unchecked.
    math_out_of_time: bool = False
