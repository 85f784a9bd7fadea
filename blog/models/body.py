"""A post body rendered once and kept: HTML, table of contents, reading time, feed."""

import hashlib
import json
import secrets

from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from wagtail.url_routing import RouteResult

from blog import reading
from blog.blocks import (
    FIGURE_SIZE_SCRIPT,
    Text,
    body_anchors,
    body_headings,
    figure_document,
    math_output,
)
from blog.text import body_pieces, snippet_passages
from pagecache.cache import kept, kept_many, page_tokens, pages_tokens, site_paths
from rendering import DIAGRAM_CLASS, budget, render_inline_text
from rendering.cache import batch, make_key
from rendering.feed import absolutize_urls, as_character_data
from rendering.math import prefetch_math
from serving.security import allow_figure_scripts, figure_policy, figure_script_sources

# A rendered body is dropped with its page's cache tokens; the rest expire.
BODY_CACHE_SECONDS = 7 * 24 * 3600
# Bump when snippet_passages() changes, so that those kept are made again.
SNIPPET_PASSAGES_KEY = "search-passages-1"
# An interactive figure of a live page is served at <page url>figures/<block id>/.
FIGURES = "figures"


# Where the post template places the body: unique to this process, so no text
# of a page can be mistaken for it.
BODY_MARK = mark_safe(f"<!--body {secrets.token_hex(16)}-->")  # noqa: S308
_BODY_MARK_BYTES = BODY_MARK.encode()


def _with_body(response):
    """Have a post's response take its body's bytes once the template is rendered."""
    if "body_html" in (getattr(response, "context_data", None) or {}):
        response.add_post_render_callback(_place_body)
    return response


def _place_body(response):
    """Put the rendered body's bytes where the post template left its mark.

    And, in a preview, let the scripts of its inline figures run
    (serving/security.py); a live page's figures have URLs of their own.
    """
    before, mark, after = response.content.partition(_BODY_MARK_BYTES)
    if mark:
        response.content = b"".join([before, response.context_data["body_html"], after])
    allow_figure_scripts(response, response.context_data["rendered"]["scripts"])
    return response


def _whole(rendered: dict) -> bool:
    """Return whether a render has every part typeset, so it may be kept."""
    return not rendered.get("provisional")


def render_body(page, context: dict) -> str:
    """Return ``page.body`` rendered, its display formulas read in one cache batch.

    A body of N math blocks is then one render cache read, not N (each block's
    text is batched by its own renderer).
    """
    with batch():
        prefetch_math(
            (
                (piece.text, True)
                for piece in body_pieces(page.body.raw_data)
                if piece.kind is Text.TEX
            ),
            math_output(context),
        )
        return str(page.body.render_as_block(context=context))


class RenderedBody:
    """A page mixin for a ``body`` StreamField: its renders, kept in the render cache.

    The page also defines ``tag_names(posts)`` for its feed entries.
    """

    # The model field ``body`` is (SeriesPage calls it ``intro``).
    body_field = "body"

    def body_digest(self) -> str:
        """Return a digest of the body's content, for cache keys of what it renders.

        One string is hashed far quicker than hundreds of blocks are walked.
        A post loaded ``with_body_digest()`` has the digest of the text the
        database holds, and its body is never loaded while its renders are in
        the cache.
        """
        stored = self.__dict__.get("stored_body_digest")
        if stored and "body" not in self.__dict__:
            return stored
        text = json.dumps(
            list(self.body.raw_data), ensure_ascii=False, sort_keys=True, default=repr
        )
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def rendered(self, request=None):
        """Return the body's HTML, its table of contents and reading time.

        A body of hundreds of formulas and code blocks is hundreds of render
        cache reads, and the table of contents and reading time walk it again;
        all three are worked out once and kept as one render cache entry. Its
        key is the body's content and the page's page-cache tokens, so whatever
        purges the page (a linked page moved, an image replaced) renders it
        again. Returns a dict: ``html`` (UTF-8 bytes), ``toc`` and its list as
        HTML (``toc_html``), ``minutes``, and whether there is ``math`` and
        ``code`` in it, and ``diagrams`` to draw.
        """

        figures_at = self.figures_at(request)

        def render():
            context = {"page": self, "request": request, "figures_at": figures_at}
            with budget.watch() as seen:
                html = render_body(self, context)
                toc = self.toc
            return {
                "html": html.encode(),
                "toc": toc,
                # The list the page shows, placed whole: the template's loop
                # over dozens of headings is not run again for every reader.
                "toc_html": render_to_string(
                    "includes/toc_list.html", {"entries": toc}
                ),
                "minutes": self.reading_minutes,
                # What the page needs to load: KaTeX's CSS and fonts, Pygments' CSS.
                "math": 'class="katex' in html or "math-pending" in html,
                "code": 'class="highlight' in html,
                # Interactive figures, which static/js/figures.js sizes.
                "figures": 'class="block-html-figure' in html,
                # Mermaid diagrams, which static/js/diagrams.js draws.
                "diagrams": f'class="{DIAGRAM_CLASS}"' in html,
                # A preview's inline figures (srcdoc), whose scripts it allows.
                "scripts": [] if figures_at else figure_script_sources(html),
                # Past the request's render budget, parts show their source
                # (rendering/budget.py): shown, not kept.
                "provisional": seen.provisional,
            }

        def key():
            tokens = page_tokens(self.url_path)
            parts = [self.pk, tokens, self.body_digest(), figures_at]
            return make_key("post-body", parts)

        return kept(key, render, BODY_CACHE_SECONDS, keep=_whole)

    @classmethod
    def feed_entries(cls, posts, request, urls) -> list[dict]:
        """Return each post's feed entry: ``content`` and the names of its ``tags``.

        The content is the body for feed readers, as escaped XML character
        data, rendered with ``{"feed": True}`` in the block context: math as
        MathML only, code with inline styles, the interactive figure as a link,
        no heading anchors, every URL absolute against the post's in ``urls``.
        Kept in the render cache like ``rendered()``, all read in one call; the
        tags with it, since retagging a post publishes it and renaming a tag
        purges every page, and either drops the entry.
        """

        def keys():
            tokens = pages_tokens([post.url_path for post in posts])
            return [
                make_key("feed-entry", [post.pk, token, url, post.body_digest()])
                for post, token, url in zip(posts, tokens, urls, strict=True)
            ]

        def make(indexes):
            # The posts come with a card's columns (for_feed): load whole the
            # ones to render, in one query. One deleted meanwhile gets no
            # entry, and none is kept for it.
            pks = [posts[i].pk for i in indexes]
            whole = cls.objects.filter(pk__in=pks).in_bulk()
            tags = cls.tag_names(whole.values())
            return [
                entry(whole[pk], urls[i], tags[pk]) if pk in whole else None
                for pk, i in zip(pks, indexes, strict=True)
            ]

        def entry(post, url, tags):
            # An entry with a part left by the request's render budget is its
            # summary and a link (rendering/budget.py): shown, not kept.
            with budget.watch() as seen:
                content = render(post, url)
            if not seen.provisional:
                return {"content": content, "tags": tags}
            return {"content": summary(post, url), "tags": tags, "provisional": True}

        def render(post, url):
            context = {"page": post, "request": request, "feed": True, "page_url": url}
            html = render_body(post, context)
            return as_character_data(absolutize_urls(html, url))

        def summary(post, url):
            text = getattr(post, "summary", "")
            html = format_html('<p>{}</p><p><a href="{}">阅读全文</a></p>', text, url)
            return as_character_data(html)

        entries = kept_many(len(posts), keys, make, BODY_CACHE_SECONDS, keep=_whole)
        return [entry or {"content": "", "tags": []} for entry in entries]

    def figures_at(self, request=None) -> str | None:
        """Return the URL the body's figures are served under; None in a preview.

        A preview shows a draft, whose figures have no public URL yet: they
        are shown inline.
        """
        if getattr(request, "is_preview", False):
            return None
        url = self.get_url(request)
        return f"{url}{FIGURES}/" if url else None

    def figure_ids(self, body=None) -> list[str]:
        """Return the block ids of the body's interactive figures."""
        return [
            block["id"]
            for block in (self.body if body is None else body).raw_data
            if block["type"] == "html_figure" and block.get("id")
        ]

    def save(self, *args, **kwargs):
        # The figures the saved body had: one that a publish removes is
        # purged with the rest (figure_paths), not left in the page cache.
        fields = kwargs.get("update_fields")
        field = self.body_field
        if self.pk and (fields is None or field in fields):
            stored = type(self).objects.filter(pk=self.pk).values_list(field, flat=True)
            self.figure_ids_before = [
                i for body in stored for i in self.figure_ids(body)
            ]
        return super().save(*args, **kwargs)

    def figure_paths(self) -> set[str]:
        """Return the paths the body's figures are served at, to purge with the page.

        The figures it had before it was last saved in this process too.
        """
        ids = {*self.figure_ids(), *getattr(self, "figure_ids_before", ())}
        return {
            f"{path}{FIGURES}/{block_id}/"
            for path in site_paths(self.url_path)
            for block_id in ids
        }

    def figure_markup(self, block_id: str) -> str | None:
        """Return the HTML of the body's figure ``block_id``, or None."""
        for block in self.body.raw_data:
            if block["type"] == "html_figure" and block.get("id") == block_id:
                return block["value"].get("html") or ""
        return None

    def route(self, request, path_components):
        # <page url>figures/<block id>/ of a live page: Wagtail's serve view
        # then checks the page's view restrictions, as for the page itself.
        if (
            len(path_components) == 2
            and path_components[0] == FIGURES
            and self.live
            and self.figure_markup(path_components[1]) is not None
        ):
            return RouteResult(self, kwargs={"figure": path_components[1]})
        return super().route(request, path_components)

    def serve_figure(self, request, block_id: str):
        """Serve a figure's own document, under a policy that runs its scripts only.

        Sandboxed by its policy (an opaque origin, even opened on its own),
        framed by this site only, and kept in the page cache like a page.
        """
        # With the script that sizes its frame to its content (a preview's
        # inline figure keeps the height its author set).
        document = figure_document(self.figure_markup(block_id) or "")
        document += FIGURE_SIZE_SCRIPT
        response = HttpResponse(document, content_type="text/html; charset=utf-8")
        response["X-Frame-Options"] = "SAMEORIGIN"
        response["X-Robots-Tag"] = "noindex"
        response._csp_replace = figure_policy(document)
        return response

    def serve(self, request, *args, figure=None, **kwargs):
        if figure is not None:
            return self.serve_figure(request, figure)
        return _with_body(super().serve(request, *args, **kwargs))

    def serve_preview(self, request, mode_name):
        return _with_body(super().serve_preview(request, mode_name))

    def headings(self):
        """Return (anchor, text, level) for every heading of the body, for a TOC."""
        anchors = [a for block in body_anchors(self.body).values() for a in block]
        return [
            (anchor, text, level)
            for anchor, (_, level, text) in zip(
                anchors, body_headings(self.body), strict=True
            )
        ]

    @cached_property
    def toc(self):
        """Return the table of contents: dicts of anchor, level (2–4) and html.

        The heading text is typeset here, inline math included, so the template
        only places finished HTML. Pages show it from ``rendered()``.
        """
        return [
            {
                "anchor": anchor,
                "level": int(level[1]),
                # The renderer escapes everything that is not KaTeX output.
                "html": mark_safe(render_inline_text(text)),  # noqa: S308
            }
            for anchor, text, level in self.headings()
        ]

    @cached_property
    def reading_minutes(self) -> int:
        """Return the estimated reading time in minutes (see blog/reading.py)."""
        return reading.reading_minutes(self.body.raw_data)

    def body_context(self, request) -> dict:
        """Return the template's ``rendered`` body and the ``body_html`` bytes.

        The template places a mark; the body's bytes go in after rendering
        (``_place_body``): megabytes of KaTeX are copied once, not joined as
        text at every level of the template and encoded again.
        """
        rendered = self.rendered(request)
        return {
            "rendered": {**rendered, "html": BODY_MARK},
            "body_html": rendered["html"],
        }

    @classmethod
    def snippet_passages(cls, posts) -> dict[int, list]:
        """Return each post's ``snippet_passages()`` by id, kept in the render cache.

        Keyed by the body's content; posts loaded ``with_body_digest()`` have
        their bodies loaded, in one query, only for the passages not kept.
        """
        posts = list(posts)

        def keys():
            return [
                make_key(SNIPPET_PASSAGES_KEY, post.body_digest()) for post in posts
            ]

        def passages(indexes):
            pks = [posts[i].pk for i in indexes]
            bodies = cls.objects.filter(pk__in=pks).only("body").in_bulk()
            # A post deleted meanwhile has none, and none are kept for its body.
            return [
                snippet_passages(bodies[pk].body) if pk in bodies else None
                for pk in pks
            ]

        found = kept_many(len(posts), keys, passages, BODY_CACHE_SECONDS)
        return {post.pk: kept or [] for post, kept in zip(posts, found, strict=True)}
