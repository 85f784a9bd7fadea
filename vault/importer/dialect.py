"""How the author's own site read the vault: what its settings files say.

Obsidian (with "strict line breaks" off, its default) and MkDocs with the
``nl2br`` extension show a single newline inside a paragraph as a line break;
plain CommonMark joins the lines. `line_breaks` reads which one the vault uses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

# Settings files are small; a bigger one is not read (nor a hostile one parsed).
MAX_SETTINGS_BYTES = 1_000_000


@dataclass(frozen=True)
class Choice:
    """An import setting, with the reason it was chosen, for the summary."""

    value: bool
    reason: str


class _TolerantLoader(yaml.SafeLoader):
    """A safe loader that reads tags it does not know (``!!python/name:…``) as None."""


_TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def _read(path: Path) -> str | None:
    """Return a settings file's text, or None when it is absent or unreadable."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
        if path.stat().st_size > MAX_SETTINGS_BYTES:
            return None
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _mkdocs_file(root: Path) -> Path | None:
    """Return the ``mkdocs.yml`` that publishes ``root`` (beside it, or above ``docs/``)."""
    candidates = [root / "mkdocs.yml", root / "mkdocs.yaml"]
    if root.name == "docs":
        candidates += [root.parent / "mkdocs.yml", root.parent / "mkdocs.yaml"]
    return next((path for path in candidates if path.is_file()), None)


def _mkdocs_nl2br(text: str) -> bool | None:
    """Return whether ``mkdocs.yml`` enables nl2br; None when it cannot be read."""
    try:
        config = yaml.load(text, Loader=_TolerantLoader)  # noqa: S506 (safe subclass)
    except yaml.YAMLError:
        return None
    if not isinstance(config, dict):
        return None
    extensions = config.get("markdown_extensions") or []
    if isinstance(extensions, dict):
        extensions = list(extensions)
    if not isinstance(extensions, list):
        return None
    for item in extensions:
        names = list(item) if isinstance(item, dict) else [item]
        for name in names:
            if isinstance(name, str) and name.rsplit(".", 1)[-1] == "nl2br":
                return True
    return False


_PAGE_TITLE = re.compile(r"""\bpageTitle\s*:\s*(["'`])((?:(?!\1).)+)\1""")


def site_name(root: Path) -> tuple[str, str] | None:
    """Return the name the vault's own site had, and the file that says it.

    ``mkdocs.yml``'s ``site_name``, else Quartz's ``quartz.config.ts``
    ``pageTitle``; None when neither names one.
    """
    if (config := _mkdocs_file(root)) is not None:
        try:
            settings = yaml.load(_read(config) or "", Loader=_TolerantLoader)  # noqa: S506
        except yaml.YAMLError:
            settings = None
        name = settings.get("site_name") if isinstance(settings, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip(), config.name
    for folder in (root, root.parent):
        quartz = folder / "quartz.config.ts"
        match = _PAGE_TITLE.search(_read(quartz) or "")
        if match and match.group(2).strip():
            return match.group(2).strip(), quartz.name
    return None


def line_breaks(root: Path) -> Choice:
    """Return whether a newline inside a paragraph is a line break in this vault.

    The published site decides first (``mkdocs.yml``'s ``nl2br``), then Obsidian's
    ``strictLineBreaks`` (off unless set); otherwise CommonMark (no break).
    """
    if (config := _mkdocs_file(root)) is not None:
        enabled = _mkdocs_nl2br(_read(config) or "")
        if enabled is not None:
            name = config.name
            return Choice(
                enabled,
                f"{name} enables nl2br" if enabled else f"{name} does not enable nl2br",
            )
    if (root / ".obsidian").is_dir():
        strict = False
        text = _read(root / ".obsidian" / "app.json")
        if text:
            try:
                settings = json.loads(text)
            except ValueError:
                settings = {}
            strict = (
                isinstance(settings, dict) and settings.get("strictLineBreaks") is True
            )
        if strict:
            return Choice(False, "Obsidian vault, strictLineBreaks on")
        return Choice(True, "Obsidian vault, strict line breaks off")
    return Choice(False, "no .obsidian/ or mkdocs.yml: CommonMark")
