"""Find the local files a Markdown file refers to: images, figure pages, covers.

Nothing outside the vault is read: a path that climbs out (``../``, an absolute
path, their percent-encodings) or a symlink that leads out is refused, and a
Windows path is looked up in the vault by its file name, never on the disk.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
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


def _exists(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


@dataclass(frozen=True)
class Located:
    """The vault file a path leads to, or None; ``warning`` says what to report.

    With no path the warning says why the file was refused; with a path, which
    of several files of that name was taken.
    """

    path: Path | None = None
    warning: str = ""


class AssetFinder:
    """Resolve paths as an author's tools did, inside one vault."""

    def __init__(self, root: Path) -> None:
        self.given = Path(os.path.abspath(root))
        self.root = root.resolve()
        self._by_name: dict[str, list[Path]] | None = None

    def find(self, src: str, base: Path) -> Path | None:
        """Return the vault file ``src`` names from a file in ``base``, or None."""
        return self.locate(src, base).path

    def locate(self, src: str, base: Path) -> Located:
        """Return the vault file ``src`` names from a file in ``base``.

        Relative paths are tried against the file's folder, then the vault root
        (where Quartz and Hexo resolve ``/img/x.png``); failing both, a file of
        that name anywhere in the vault, as Obsidian finds attachments. A
        Windows path (``C:\\Users\\…\\a.png``) is only looked up by name.
        """
        path = local_part(src)
        if not path:
            return Located()
        written = path.replace("\\", "/")
        if _WINDOWS_ABSOLUTE.match(path):
            candidates = []
        elif written.startswith("/"):
            candidates = [Path(written), self.root / written.lstrip("/")]
        else:
            candidates = [base / written, self.root / written]
        refused = False
        for candidate in candidates:
            if not self._lexically_inside(candidate):
                # ``/img/a.png`` usually means the vault root: it is only called
                # outside when such a file exists there (looked at, never read).
                refused = refused or candidate != Path(written) or _exists(candidate)
                continue
            try:
                if not candidate.is_file():
                    continue
                real = candidate.resolve()
            except OSError:
                continue
            if self.inside(real):
                return Located(real)
            refused = True  # a symlink leading out of the vault
        found = self._by_file_name(written)
        if found.path is not None or not refused:
            return found
        return Located(warning=f"file outside the vault not read: {path}")

    def inside(self, path: Path) -> bool:
        """Return True if ``path``, its symlinks followed, lies inside the vault."""
        return path.resolve().is_relative_to(self.root)

    def _lexically_inside(self, path: Path) -> bool:
        """Return True if ``path`` is in the vault before following any symlink.

        A path that climbs out is refused without looking at the file at all.
        """
        normal = Path(os.path.normpath(os.path.abspath(path)))
        return normal.is_relative_to(self.given) or normal.is_relative_to(self.root)

    def _by_file_name(self, written: str) -> Located:
        """Return the vault file named like the last part of ``written``.

        Of several, the one whose folders end like the written path's wins;
        a tie is taken in path order and reported.
        """
        name = PurePosixPath(written).name
        matches = []
        for path in self.by_name().get(name.lower(), []):
            try:
                real = path.resolve()
            except (OSError, RuntimeError):  # RuntimeError: a symlink loop
                continue
            if real.is_relative_to(self.root) and real.is_file():
                matches.append(real)
        matches = sorted(set(matches))
        if len(matches) <= 1:
            return Located(matches[0] if matches else None)
        wanted = [part.lower() for part in PurePosixPath(written).parts[::-1]]

        def shared_tail(path: Path) -> int:
            parts = [part.lower() for part in path.relative_to(self.root).parts[::-1]]
            n = 0
            while n < min(len(parts), len(wanted)) and parts[n] == wanted[n]:
                n += 1
            return n

        best = max(shared_tail(path) for path in matches)
        tied = [path for path in matches if shared_tail(path) == best]
        if len(tied) == 1:
            return Located(tied[0])
        names = ", ".join(str(path.relative_to(self.root)) for path in tied[:5])
        chosen = tied[0].relative_to(self.root)
        return Located(
            tied[0],
            f"ambiguous file name: {written} matches {len(tied)} files in the "
            f"vault ({names}); using {chosen}",
        )

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
