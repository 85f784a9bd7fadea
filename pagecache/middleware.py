"""Serve anonymous readers from the page cache, and fill it (``pagecache.cache``)."""

import logging

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.utils.cache import cc_delim_re, get_conditional_response
from django.utils.http import http_date, parse_http_date_safe

from pagecache.cache import (
    current_tokens,
    digest,
    forget_tokens,
    page_cache,
    path_token_key,
    purges_pending,
    read_ahead,
    site_token_key,
    tokens_read_once,
)
from pagecache.query import declared, is_as_declared, normalised_query
from pagecache.sites import find_site
from serving.compression import accepted_encoding

logger = logging.getLogger(__name__)

# The response headers a cached copy keeps; the rest are per request.
STORED_HEADERS = (
    "Content-Type",
    "Content-Encoding",
    "Content-Language",
    "Vary",
    "ETag",
    "Last-Modified",
    "Cache-Control",
    "X-Robots-Tag",
    # DENY, or SAMEORIGIN for what this site frames (a figure's document).
    "X-Frame-Options",
)


class PageCacheMiddleware:
    """Serve anonymous GETs of public pages from the page cache, filling it on a miss.

    Placed above compression and ConditionalGet, so it stores the compressed response
    with its ETag, and answers a conditional request for a cached page with 304
    itself. A cache that fails (Redis down) is logged and bypassed. Below it, each
    token is read at most once per request (``tokens_read_once``), cached page or not.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with tokens_read_once():
            return self.serve(request)

    def serve(self, request):
        timeout = settings.PAGE_CACHE_SECONDS
        if timeout <= 0 or not self.is_cacheable_request(request) or purges_pending():
            return self.get_response(request)
        cache = page_cache()
        minted = set()
        try:
            # The site's token and the path's, read in one round trip: finding
            # the site reads the one, keying the page both.
            read_ahead(cache, [site_token_key(), path_token_key(request.path_info)])
            site = find_site(request)
            # Read before rendering: a purge made meanwhile orphans the copy.
            key = self.key_for(cache, request, site, minted) if site else None
            stored = cache.get(key) if key else None
        except DisallowedHost:
            site = None  # refused below, by CommonMiddleware
        except Exception:
            logger.warning("Page cache unavailable", exc_info=True)
            site = None
        if site is None:  # nothing to key the page by: Wagtail serves none here
            return self.get_response(request)
        if stored is not None:
            return self.answer(request, stored)

        response = self.get_response(request)
        lifetime = self.lifetime(request, timeout)
        if not (lifetime > 0 and self.is_cacheable_response(response)):
            # Nothing kept. A path token this request made for a path that is
            # no page (a 404, a redirect) is taken back, so made-up paths
            # leave nothing in the cache; a page's stays, for its renders.
            if response.status_code != 200:
                self.forget_path_token(request, minted)
        else:
            if not response.has_header("Last-Modified"):
                response["Last-Modified"] = http_date()
            stored = {
                "content": response.content,
                "headers": {
                    name: response[name]
                    for name in STORED_HEADERS
                    if response.has_header(name)
                },
                # What a page adds to or replaces in the Content-Security-Policy
                # (a figure's document: serving/security.py), which the
                # middleware above this one sends.
                "csp_update": getattr(response, "_csp_update", None),
                "csp_replace": getattr(response, "_csp_replace", None),
            }
            try:
                cache.set(key, stored, lifetime)
            except Exception:
                logger.warning("Could not store a page", exc_info=True)
        response["X-Page-Cache"] = "miss"
        return response

    @staticmethod
    def forget_path_token(request, minted: set) -> None:
        try:
            forget_tokens(minted & {path_token_key(request.path_info)})
        except Exception:
            logger.warning("Could not forget a path's token", exc_info=True)

    @staticmethod
    def is_cacheable_request(request) -> bool:
        if request.method not in ("GET", "HEAD"):
            return False
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            return False
        if request.path_info.startswith(tuple(settings.PAGE_CACHE_EXCLUDED_PATHS)):
            return False
        # Names no page reads bypass the cache at once; which of these a page
        # reads, and with what values it is stored, its view says (``pagecache.query``).
        return set(request.GET) <= set(settings.PAGE_CACHE_QUERY_PARAMS)

    @staticmethod
    def lifetime(request, timeout: int) -> int:
        """Return how long to keep this request's page: 0 for not at all.

        Only a page asked for with exactly the query its view declared is kept
        (``pagecache.query``), for at most the lifetime its view set.
        """
        if not is_as_declared(request):
            return 0
        seconds = declared(request)[1]
        return timeout if seconds is None else min(timeout, seconds)

    @staticmethod
    def is_cacheable_response(response) -> bool:
        if response.status_code != 200 or response.streaming or response.cookies:
            return False
        vary = {v.lower() for v in cc_delim_re.split(response.get("Vary", ""))}
        if "cookie" in vary or "*" in vary:
            return False
        control = {
            part.split("=")[0].strip().lower()
            for part in cc_delim_re.split(response.get("Cache-Control", ""))
        }
        return not control & {"private", "no-store", "no-cache"}

    @staticmethod
    def key_for(cache, request, site, minted: set | None = None) -> str:
        """Return the key of this request's variant of its page.

        The variant is the Wagtail site that serves it (not the Host header:
        ``LOCALHOST``, ``localhost.`` and any port are one site), the path
        within the application (not ``SCRIPT_NAME``, which purges do not
        know), the normalised query (``pagecache.query``), and whether the
        client takes Brotli, gzip or neither (the compression middleware below
        decides by that alone for the requests cached here). The keys of the
        tokens it minted go into ``minted``.
        """
        path = request.path_info
        keys = [site_token_key(), path_token_key(path)]
        site_token, page = current_tokens(cache, keys, minted)
        encoding = accepted_encoding(request)
        query = normalised_query(request.GET)
        variant = digest(f"{site.pk}\n{path}?{query}\n{encoding}")
        return f"pagecache:page:{site_token}:{page}:{variant}"

    @staticmethod
    def answer(request, stored):
        """Return the stored copy, or 304 when the client's copy is current."""
        response = HttpResponse(stored["content"])
        for name, value in stored["headers"].items():
            response[name] = value
        response["Content-Length"] = str(len(stored["content"]))
        response["X-Page-Cache"] = "hit"
        if stored.get("csp_update"):
            response._csp_update = stored["csp_update"]
        if stored.get("csp_replace"):
            response._csp_replace = stored["csp_replace"]
        return get_conditional_response(
            request,
            etag=response.get("ETag"),
            last_modified=parse_http_date_safe(response.get("Last-Modified", "")),
            response=response,
        )
