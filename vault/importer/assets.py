"""Find the local files a Markdown file refers to: images, figure pages, covers."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from .links import is_external

_WINDOWS_ABSOLUTE = re.compile(r"[A-Za-z]:[\\/]|\\\\")


def local_part(src: str) -> str:
    """Return the file path a local ``src`` names: decoded, no query or fragment."""
    src = src.strip().strip("<>")
    if src.lower().startswith("file://"):
        src = (
            src[len("file://") :].lstrip("/")
            if re.match(r"file:///[A-Za-z]:", src, re.IGNORECASE)
            else src[len("file://") :]
        )
    elif is_external(src) or src.startswith("//"):
        return ""
    path = src.split("?", 1)[0].split("#", 1)[0]
    return unquote(path)


class AssetFinder:
    """Resolve paths as an author's tools did, inside one vault."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._by_name: dict[str, list[Path]] | None = None

    def find(self, src: str, base: Path) -> Path | None:
        """Return the existing file ``src`` names from a file in ``base``, or None.

        Relative paths are tried against the file's folder, then the vault root
        (where Quartz and Hexo resolve ``/img/x.png``); failing both, a file of
        that name anywhere in the vault, as Obsidian finds attachments.
        """
        path = local_part(src)
        if not path:
            return None
        if _WINDOWS_ABSOLUTE.match(path) or path.startswith("/"):
            candidates = [Path(path), self.root / path.lstrip("/\\")]
        else:
            candidates = [base / path, self.root / path]
        for candidate in candidates:
            try:
                if candidate.is_file():
                    return candidate.resolve()
            except OSError:
                continue
        name = re.split(r"[\\/]", path)[-1].lower()
        matches = self.by_name().get(name)
        return sorted(matches)[0] if matches else None

    def inside(self, path: Path) -> bool:
        """Return True if ``path`` lies inside the vault."""
        return path.resolve().is_relative_to(self.root)

    def by_name(self) -> dict[str, list[Path]]:
        """Return every file of the vault by lowercased name (built once)."""
        if self._by_name is None:
            self._by_name = {}
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in files:
                    self._by_name.setdefault(name.lower(), []).append(
                        Path(folder, name)
                    )
        return self._by_name
