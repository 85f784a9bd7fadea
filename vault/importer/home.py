"""The vault's root ``index.md``: the home page's intro, and the site's name.

The root folder is the home page itself, so its ``index.md`` is no post: its
text becomes `HomePage.intro` (rich text: paragraphs, lists, links; a heading
becomes a bold line), re-written on every import it changed in. A home page
still titled as ``migrate`` made it gives the site the name the vault's own
site had (`dialect.site_name`). `HomeMixin` is part of `importer.Importer`.
"""

from __future__ import annotations

import html

from wagtail.models import Site

from blog.models import HomePage

from .fill import body_raw
from .records import Source
from .report import Issue

# The home page's title as `migrate` makes it (blog/migrations/0002).
DEFAULT_HOME_TITLE = "首页"
# What the root index.md is reported as.
HOME_LABEL = "index.md"
# Block types the intro can hold as rich text.
_BLOCK_NAMES = {
    "code": "a code block",
    "math": "a display formula",
    "image": "an image",
    "table": "a table",
    "callout": "a callout",
    "quote": "a quote",
    "markdown": "a block rich text cannot hold",
    "html_figure": "an HTML figure",
    "embed": "an embed",
}


def intro_html(raw: list[dict], lines: list[int]) -> tuple[str, list[Issue]]:
    """Return the intro's rich text from a body's raw blocks, and what was left out."""
    parts, left_out = [], []
    for block, line in zip(raw, lines, strict=True):
        if block["type"] == "paragraph":
            parts.append(block["value"])
        elif block["type"] == "heading":
            parts.append(f"<p><b>{html.escape(block['value']['text'])}</b></p>")
        else:
            what = _BLOCK_NAMES.get(block["type"], f"a {block['type']} block")
            left_out.append(
                Issue(
                    f"{what} is not kept in the home page's intro, which holds "
                    "text, lists and links only",
                    line,
                )
            )
    return "".join(parts), left_out


class HomeMixin:
    """The root index.md and the site's name, for `Importer`."""

    home_source: Source | None = None

    def _home(self) -> HomePage | None:
        """Return the page imported under, when it is a home page."""
        return self.parent if isinstance(self.parent, HomePage) else None

    def _import_home(self) -> None:
        """Write the root index.md into the home page's intro; say what happened."""
        source, home = self.home_source, self._home()
        if source is None or home is None:
            return
        if source.theme:
            self.report.warn(
                Issue(f"only a template placeholder ({source.theme}); not imported"),
                HOME_LABEL,
            )
            return
        if source.errors:
            self.report.failures.extend(issue.at(HOME_LABEL) for issue in source.errors)
            self.report.warn(source.warnings, HOME_LABEL)
            self.report.notes.append(
                "index.md at the vault's root: not imported (see Failures)"
            )
            return
        resolved = []
        for ref in source.body.links:
            target = self._target(ref, source)
            page = self.pages.get(target) if target else None
            resolved.append(page)
            if page is None:
                source.warnings.append(
                    Issue(f"broken link to {ref.url}: no such page", ref.line)
                )
        images = [None] * len(source.body.images)
        intro, left_out = intro_html(*body_raw(source.body, resolved, images))
        if source.body.h1:  # the heading the file starts with: its first line
            intro = f"<p><b>{html.escape(source.body.h1)}</b></p>{intro}"
        self.report.warn([*source.warnings, *left_out], HOME_LABEL)
        page = home.get_latest_revision_as_object()
        if self.keep_existing and page.intro:
            outcome = "kept (the home page has an intro already)"
        elif page.intro == intro:
            outcome = "unchanged"
        else:
            page.intro = intro
            revision = page.save_revision()
            if not self.draft:
                revision.publish()
            outcome = "updated" + (" (a draft)" if self.draft else "")
        self.report.notes.append(
            f"index.md at the vault's root: the home page's intro, {outcome}"
        )

    def _name_site(self, name: str | None, settings_file: str) -> None:
        """Give a site still as ``migrate`` made it the name its old site had."""
        home = self._home()
        if not name or home is None or home.title != DEFAULT_HOME_TITLE:
            return
        site = Site.objects.filter(root_page=home).first()
        if site is None or site.site_name:
            return
        site.site_name = name[:255]
        site.save(update_fields=["site_name"])
        self.report.notes.append(f"Site name: {name} (from {settings_file})")
