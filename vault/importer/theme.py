"""Template placeholders: what the old site's theme filled in, never text.

MkDocs and Jinja themes put ``{{ tag_content }}`` or ``{% include … %}`` in
Markdown for the theme to replace. A page that is only such placeholders is
the theme's own page (its tag index, most often): it is not imported, and its
old URL leads to ours. A placeholder elsewhere is dropped with a warning,
except in code and math, where ``{{`` is the author's (C++ initializers,
LaTeX groups). `ThemeMixin` is part of `importer.Importer`.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from wagtail.models import Page

from blog.models import TagIndexPage

from .places import redirect_path
from .records import Source
from .report import Issue

PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
# Material for MkDocs' newer tags marker: an HTML comment, alone in the page.
_TAGS_MARKER = re.compile(r"<!--\s*material/tags\b.*?-->", re.DOTALL)
_CODE_OR_MATH = re.compile(r"(`+).+?\1|\$\$.+?\$\$|\$[^$\n]+\$|\\\(.+?\\\)")
_FENCE = re.compile(r"\s{0,3}(```|~~~)")


def theme_placeholder(body: str) -> str | None:
    """Return the placeholder a body is made of alone (the theme's page), else None."""
    found = [m.group() for m in PLACEHOLDER.finditer(body)]
    found += [m.group() for m in _TAGS_MARKER.finditer(body)]
    rest = _TAGS_MARKER.sub("", PLACEHOLDER.sub("", body))
    if not found or rest.strip():
        return None
    return found[0]


def drop_placeholders(text: str) -> tuple[str, list[str]]:
    """Return ``text`` without placeholders outside code and math, and those dropped."""
    dropped: list[str] = []

    def outside(part: str) -> str:
        dropped.extend(PLACEHOLDER.findall(part))
        return PLACEHOLDER.sub("", part)

    out, pos = [], 0
    for match in _CODE_OR_MATH.finditer(text):
        out.append(outside(text[pos : match.start()]))
        out.append(match.group())
        pos = match.end()
    out.append(outside(text[pos:]))
    return "".join(out), dropped


def drop_placeholders_in_source(source: str) -> str:
    """Return Markdown source without placeholders outside fences, code and math."""
    lines, in_fence = [], False
    for line in source.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        lines.append(line if in_fence else drop_placeholders(line)[0])
    return "\n".join(lines)


class ThemeMixin:
    """Pages the old theme made, for `Importer`."""

    theme_pages: list[Source] = []  # noqa: RUF012 (set per run)

    def _drop_theme_pages(self, tree) -> None:
        """Take the theme's own pages out of the tree; keep their folders' posts.

        A folder whose index.md is the theme's page is still the series of the
        posts in it, named after the folder; with nothing else in it, it goes.
        """
        self.theme_pages: list[Source] = []
        for folder in reversed(list(tree.walk())):
            for rel in list(folder.posts):
                source = self.sources[("post", rel)]
                if source.theme:
                    folder.posts.remove(rel)
                    del self.sources[source.key]
                    self.theme_pages.append(source)
            for child in list(folder.folders):
                source = self.sources[("series", child.rel)]
                if not source.theme:
                    continue
                self.theme_pages.append(source)
                if child.posts or child.folders:
                    kept = Source(source.key, None, f"{child.rel}/", source.name)
                    kept.title = source.name
                    kept.data = f"folder:{source.name}".encode()
                    self.sources[source.key] = kept
                else:
                    folder.folders.remove(child)
                    del self.sources[source.key]

    def _tag_index(self) -> Page | None:
        site = self.parent.get_site()
        root = site.root_page if site else self.parent
        return TagIndexPage.objects.child_of(root).live().first()

    def _redirect_theme_pages(self) -> None:
        """Point the theme's tag index's old URL at ours; say what became of each."""
        tag_index = self._tag_index()
        for source in self.theme_pages:
            placeholder = source.theme
            if "tag" not in placeholder.lower() or tag_index is None:
                self.report.warn(
                    Issue(
                        f"only a template placeholder ({placeholder}) the old theme "
                        "filled in; not imported"
                    ),
                    source.file_rel,
                )
                continue
            ours = redirect_path(tag_index.get_url() or tag_index.url_path)
            said = self._redirects(tag_index, source, kinds=frozenset({"old URL"}))
            where = ", ".join(f"{unquote(p)}/" for p in said)
            self.report.notes.append(
                f"{source.file_rel}: the old theme's tag index ({placeholder}), "
                f"not imported; the site's own is {unquote(ours)}/"
                + (f" ({where} redirects to it)" if where else "")
            )
            self.report.warn(source.warnings, source.file_rel)
