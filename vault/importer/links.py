"""Paths and links between the files of a vault: no database here.

Source paths are POSIX paths relative to the imported folder (`notes/CSAPP/7-链接.md`);
a folder's source path is its relative path (`notes/CSAPP`). Links name files
the way authors write them: relative Markdown links (`../x.md#part`) and
Obsidian wikilinks (`[[x]]`, `[[x|text]]`, `[[x#heading]]`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

POST = "post"
SERIES = "series"

# A page the importer makes, by kind and source path.
PageKey = tuple[str, str]

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class WikiLink:
    """The parts of ``[[target#heading|text]]``."""

    target: str
    heading: str
    text: str

    @property
    def label(self) -> str:
        """Return the text a reader sees."""
        if self.text:
            return self.text
        if self.target and self.heading:
            return f"{self.target} > {self.heading}"
        return self.target or self.heading


def parse_wikilink(inner: str) -> WikiLink:
    """Return the parts of a wikilink from the text between ``[[`` and ``]]``."""
    target, _, text = inner.partition("|")
    target, _, heading = target.partition("#")
    return WikiLink(target.strip(), heading.strip().lstrip("^"), text.strip())


def quartz_slug(path: str) -> str:
    """Return the URL path Quartz gives a file or folder (no leading slash).

    Quartz keeps case and Unicode, turns whitespace into ``-``, ``%`` into
    ``-percent`` and ``?`` into ``-q``, and drops ``.md``; ``#`` cannot be part
    of a URL path, so it is dropped. `notes/CSAPP/7 链接.md` gives `notes/CSAPP/7-链接`.
    """
    if path.lower().endswith(".md"):
        path = path[:-3]
    segments = []
    for segment in path.strip("/").split("/"):
        segment = re.sub(r"\s", "-", segment)
        segment = segment.replace("%", "-percent").replace("?", "-q")
        segments.append(segment.replace("#", ""))
    slug = "/".join(segments)
    if slug == "_index" or slug.endswith("/_index"):
        slug = slug[: -len("_index")] + "index"
    return slug


def as_written(path: str) -> str:
    """Return the URL path MkDocs gives a file or folder: its path, ``.md`` dropped.

    Spaces, case, ``#`` and ``+`` are kept as in the file name
    (`cuda/Vector Add Example.md` gives `cuda/Vector Add Example`).
    """
    if path.lower().endswith(".md"):
        path = path[:-3]
    return path.strip("/")


def old_paths(source_path: str, *, folder: bool, prefix: str = "") -> list[str]:
    """Return the old site's URL paths of a post or folder, leading slash, no trailing.

    Both forms an old site may have served: Quartz's (spaces → ``-``) and the
    file's path as written (MkDocs); one if they are the same.
    """
    slug = quartz_slug(source_path)
    if not slug:
        return []
    if not folder and (slug == "index" or slug.endswith("/index")):
        return []
    forms = (_join_url(prefix, slug), _join_url(prefix, as_written(source_path)))
    return list(dict.fromkeys(forms))


def alias_paths(
    aliases: Iterable[str], source_path: str, *, folder: bool, prefix: str = ""
) -> list[str]:
    """Return the old URL paths ``aliases`` name, as Quartz resolves them.

    An alias is relative to the file's folder unless it starts with ``/``; a
    full URL contributes its path.
    """
    base = source_path if folder else posixpath.dirname(source_path)
    paths = []
    for alias in aliases:
        alias = alias.strip()
        if _SCHEME.match(alias) and "//" in alias:
            alias = urlsplit(alias).path
        alias = unquote(alias)  # copied from an address bar: `Vector%20Add`
        if not alias.strip("/"):
            continue
        if alias.startswith("/"):
            joined = alias.strip("/")
        else:
            joined = posixpath.normpath(posixpath.join(base, alias)).lstrip("/")
            if joined.startswith(".."):
                continue
        paths.append(_join_url(prefix, quartz_slug(joined)))
        paths.append(_join_url(prefix, joined))
    return list(dict.fromkeys(paths))


def _join_url(prefix: str, slug: str) -> str:
    parts = [part for part in (prefix.strip("/"), slug.strip("/")) if part]
    return "/" + "/".join(parts)


def is_external(url: str) -> bool:
    """Return True for URLs that name another site or scheme (http:, mailto:…)."""
    return bool(_SCHEME.match(url)) and not _WINDOWS_DRIVE.match(url)


def split_target(url: str) -> tuple[str, str]:
    """Return (decoded path, fragment) of a local link target."""
    path, _, fragment = url.partition("#")
    path = path.split("?", 1)[0]
    return unquote(path), unquote(fragment)


def is_markdown_target(url: str) -> bool:
    """Return True if ``url`` is a local link to a Markdown file."""
    if not url or is_external(url) or url.startswith("#"):
        return False
    path, _ = split_target(url)
    return path.lower().endswith(".md")


@dataclass
class LinkIndex:
    """Every page an import makes, findable the ways authors link to it."""

    # lowercased source path without ".md" -> page key
    paths: dict[str, PageKey] = field(default_factory=dict)
    # lowercased file or folder name -> page keys
    names: dict[str, list[PageKey]] = field(default_factory=dict)
    aliases: dict[str, PageKey] = field(default_factory=dict)

    def add(self, key: PageKey, aliases: Iterable[str] = ()) -> None:
        """Add the page ``key`` (a post's file or a series' folder)."""
        kind, source = key
        stem = (
            source[:-3] if kind == POST and source.lower().endswith(".md") else source
        )
        self.paths[stem.lower()] = key
        name = posixpath.basename(stem).lower()
        self.names.setdefault(name, []).append(key)
        for alias in aliases:
            self.aliases.setdefault(alias.strip().lower(), key)

    def resolve_path(self, url: str, from_source: str) -> PageKey | None:
        """Return the page a relative Markdown link from ``from_source`` names."""
        path, _ = split_target(url)
        path = path.replace("\\", "/")
        if path.startswith("/"):
            joined = path.lstrip("/")
        else:
            joined = posixpath.normpath(
                posixpath.join(posixpath.dirname(from_source), path)
            )
        return self._by_path(joined)

    def resolve_wiki(self, target: str, from_source: str) -> PageKey | None:
        """Return the page a wikilink target names, as Obsidian would find it.

        A path (``a/b``) is matched from the vault root or relative to the
        file; a bare name matches a file or folder name anywhere, preferring the
        linking file's own folder, then its alias list.
        """
        target = target.strip().replace("\\", "/")
        if not target:
            return None
        if "/" in target:
            found = self._by_path(target.lstrip("/"))
            if found is None:
                relative = posixpath.join(posixpath.dirname(from_source), target)
                found = self._by_path(posixpath.normpath(relative))
            if found is None:
                suffix = "/" + _without_md(target).lower()
                matches = [k for p, k in self.paths.items() if p.endswith(suffix)]
                found = matches[0] if len(matches) == 1 else None
            return found
        name = _without_md(target).lower()
        candidates = self.names.get(name, [])
        if len(candidates) > 1:
            folder = posixpath.dirname(from_source)
            near = [k for k in candidates if posixpath.dirname(k[1]) == folder]
            candidates = near or sorted(candidates, key=lambda k: (len(k[1]), k[1]))
        if candidates:
            return candidates[0]
        return self.aliases.get(target.lower())

    def _by_path(self, path: str) -> PageKey | None:
        stem = _without_md(path).lower().strip("/")
        if stem.endswith("/index") or stem.endswith("/_index"):
            stem = stem.rsplit("/", 1)[0]
        found = self.paths.get(stem)
        if found is None and stem.endswith("/readme"):
            # A README.md that is its folder's intro is the folder's page.
            folder = self.paths.get(stem.rsplit("/", 1)[0])
            found = folder if folder and folder[0] == SERIES else None
        return found


def _without_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path
