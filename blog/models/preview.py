"""A page's card for hover previews, served at ``<page url>preview/``.

Links in a post to another post or series show, on hover, focus or long
press, a card of the page they name (``static/js/previews.js``): its title,
date, summary and first paragraph, math typeset as on the page. The card is
a small HTML fragment kept in the page cache like any page; each page type
adds ``preview_paths()`` to what its purge returns.
"""

import re

from django.http import Http404
from django.template.response import TemplateResponse
from django.utils.safestring import mark_safe
from wagtail.url_routing import RouteResult

from pagecache.cache import site_paths
from rendering import render_inline_text

PREVIEW = "preview"
# Browsers keep a card a few minutes; the page cache and a CDN are purged.
PREVIEW_MAX_AGE = 300

# The first paragraph of a body: the first <p> of a paragraph or Markdown block.
_BLOCK_START = re.compile(r'<div class="block-(?:paragraph|markdown)[^"]*">')
_PARAGRAPH = re.compile(r"<p(?:\s[^>]*)?>.*?</p>", re.DOTALL)
# Ids (footnote references) would be duplicated on the page that shows the card.
_ID = re.compile(r'\sid="[^"]*"')


def first_paragraph(html: str) -> str:
    """Return the first paragraph of a rendered body, without ids; "" if none."""
    start = _BLOCK_START.search(html)
    if start is None:
        return ""
    found = _PARAGRAPH.search(html, start.end())
    return _ID.sub("", found.group(0)) if found else ""


class Previewable:
    """A page mixin: a card of the page at ``<url>preview/`` (live, public pages).

    The page also mixes in ``RenderedBody``: the card's paragraph is cut
    from the body as it is rendered and kept for the page itself.
    """

    preview_template = "blog/page_preview.html"

    def preview_paths(self) -> set[str]:
        """Return the paths the card of this page is served at, to purge with it."""
        return {f"{path}{PREVIEW}/" for path in site_paths(self.url_path)}

    def route(self, request, path_components):
        if path_components == [PREVIEW]:
            # A draft or a private page has no card: no title or text leaks,
            # and no password form is shown in its place.
            if not self.live or self.get_view_restrictions().exists():
                raise Http404
            return RouteResult(self, kwargs={"card": True})
        return super().route(request, path_components)

    def serve(self, request, *args, card=False, **kwargs):
        if card:
            return self.serve_card(request)
        return super().serve(request, *args, **kwargs)

    def card_context(self, request) -> dict:
        """Return what the card shows: summary and first paragraph as finished HTML."""
        summary = getattr(self, "summary", "")
        paragraph = first_paragraph(self.rendered(request)["html"].decode())
        # The renderer escapes everything that is not KaTeX output; the
        # paragraph is the body's own render (ids taken out).
        summary_html = mark_safe(render_inline_text(summary)) if summary else ""  # noqa: S308
        paragraph_html = mark_safe(paragraph)  # noqa: S308
        return {
            "page": self,
            "summary": summary_html,
            "paragraph": paragraph_html,
            "math": 'class="katex' in summary_html + paragraph_html,
        }

    def serve_card(self, request):
        """Serve the card: an HTML fragment, kept by the page cache and browsers."""
        response = TemplateResponse(
            request, self.preview_template, self.card_context(request)
        )
        response["Cache-Control"] = f"public, max-age={PREVIEW_MAX_AGE}"
        response["X-Robots-Tag"] = "noindex"
        return response
