"""Compress public pages with Brotli for browsers that take it, gzip otherwise.

A math-heavy post is megabytes of KaTeX markup. Brotli at quality 3 makes it
about a fifth of gzip's smallest, in a twentieth of its time, so a page the
page cache misses is cheaper to send and much smaller to download.

Only responses that hold no secret get Brotli: the request carries no session
cookie and the response sets no cookie (a form's CSRF token comes with one).
Everything else goes through Django's gzip middleware, which pads its output
against BREACH.

A Brotli copy is the same bytes every time, so its ETag is the hash of those
bytes: a few kilobytes rather than the megabytes of the page. A padded gzip
copy differs each time, so it is tagged (weakly) by the page before it is
compressed, and a conditional request still matches it. ConditionalGet sits
above this middleware and answers 304 from these tags.
"""

import re

import brotli
from django.conf import settings
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import cc_delim_re, patch_vary_headers, set_response_etag

# Measured on the bench's 300-formula post (1.9 MB of HTML): quality 3 takes
# 3 ms for 28 kB, quality 4 14 ms for 24.5 kB, 5 30 ms for 20.7 kB; on a
# 100 kB post, 0.6 ms against 0.9 ms for 6% more bytes. Past 3 each step buys
# readers a few kilobytes for several times the CPU of the page's whole
# render (docs/performance.md).
QUALITY = 3
_ACCEPTS_BR = re.compile(r"\bbr\b")
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


def accepted_encoding(request) -> str:
    """Return the encoding a public page is sent in to this client: br, gzip or ""."""
    accepted = request.META.get("HTTP_ACCEPT_ENCODING", "")
    if _ACCEPTS_BR.search(accepted):
        return "br"
    return "gzip" if _ACCEPTS_GZIP.search(accepted) else ""


class CompressionMiddleware(GZipMiddleware):
    """Django's GZipMiddleware, with Brotli for public pages."""

    def process_response(self, request, response):
        if (
            response.streaming
            or response.has_header("Content-Encoding")
            or len(response.content) < 200
            or accepted_encoding(request) != "br"
            or settings.SESSION_COOKIE_NAME in request.COOKIES
            or response.cookies
        ):
            if self.needs_etag(request, response):
                set_response_etag(response)
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Encoding",))
        compressed = brotli.compress(
            response.content, mode=brotli.MODE_TEXT, quality=QUALITY
        )
        if len(compressed) >= len(response.content):
            return response
        etag = response.get("ETag")
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        if etag and etag.startswith('"'):
            # The view's strong tag names the page, not these bytes: weaken
            # it, as GZipMiddleware does.
            response.headers["ETag"] = "W/" + etag
        elif self.needs_etag(request, response):
            set_response_etag(response)
        response.headers["Content-Encoding"] = "br"
        return response

    @staticmethod
    def needs_etag(request, response) -> bool:
        """Return whether ConditionalGet would tag this response, and it has no tag."""
        control = cc_delim_re.split(response.get("Cache-Control", ""))
        return (
            request.method == "GET"
            and not response.streaming
            and not response.has_header("ETag")
            and all(part.lower() != "no-store" for part in control)
        )
