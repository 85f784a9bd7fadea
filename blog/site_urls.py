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

# The hostname and port of the site `migrate` creates, before anyone sets them.
UNSET_SITE = ("localhost", 80)


def site_root_url(request) -> str:
    """Return the scheme and host of the request's site, without a slash.

    Wagtail caches the site on the request.
    """
    return root_url_of(Site.find_for_request(request) if request is not None else None)


def root_url_of(site: Site | None) -> str:
    """Return ``site``'s scheme and host, without a slash.

    A site still as `migrate` made it (``localhost``, port 80), or no site at
    all, stands for ``WAGTAILADMIN_BASE_URL``: the address a deployment sets in
    its environment.
    """
    if site is not None and (site.hostname, site.port) != UNSET_SITE:
        return site.root_url
    return settings.WAGTAILADMIN_BASE_URL.rstrip("/")


def absolute_url(request, url: str) -> str:
    """Return ``url`` (a path, or absolute already) on the site's root URL."""
    return urljoin(site_root_url(request) + "/", url)
