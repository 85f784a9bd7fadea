"""Absolute URLs for what readers keep: canonical and OpenGraph URLs, JSON-LD,
feeds, the sitemap and robots.txt.

They come from the request's Wagtail Site (Settings → Sites): its hostname,
and its port for the scheme (443 is ``https://``, 80 ``http://``, any other
``http://host:port``) — what ``Page.get_full_url`` and Wagtail's sitemap use.
Never from the request: behind a proxy that terminates TLS without
``X-Forwarded-Proto`` (or with ``SECURE_SSL_REDIRECT`` off) a request over
plain HTTP would put ``http://`` into a page the page cache then serves to
every reader, whatever scheme they came by.
"""

from urllib.parse import urljoin

from django.conf import settings
from wagtail.models import Site


def site_root_url(request) -> str:
    """Return the scheme and host of the request's site, without a slash.

    Wagtail caches the site on the request. A request no site answers for
    (none is the default) falls back to ``WAGTAILADMIN_BASE_URL``.
    """
    site = Site.find_for_request(request) if request is not None else None
    if site is not None:
        return site.root_url
    return settings.WAGTAILADMIN_BASE_URL.rstrip("/")


def absolute_url(request, url: str) -> str:
    """Return ``url`` (a path, or absolute already) on the site's root URL."""
    return urljoin(site_root_url(request) + "/", url)
