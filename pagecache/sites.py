"""Find the Wagtail Site of a request without asking the database each time.

Wagtail looks the site up by host and port on every request (one query with a
ranked CASE), then reads its home page (a second query) to start routing.
Both change only through the admin, and every change to a site purges the
whole page cache (``pagecache.purge``). So the sites, with their home pages
already specific, are kept in one entry under the page cache's site token
(one whatever hosts requests name), the request's is chosen among them by
Wagtail's rule (``choose_site``), and handed to
Wagtail the way Wagtail keeps it for the rest of a request:
``request._wagtail_site``, which ``Site.find_for_request`` reads first.

That attribute is not Wagtail's public API, nor is the rule's function, and
this module is the one place that relies on them: ``tests/pagecache/test_sites.py``
pins that Wagtail takes the attribute and that both choose the same site, so
an upgrade that changes either fails there. Home is served as the kept site
holds it; deeper pages are looked up afresh (``HomePage.route``).
"""

from django.http.request import split_domain_port
from wagtail.models.sites import Site

from pagecache.cache import remember_site

# The attribute this request's site is kept in once found (None: no site).
_FOUND = "_pagecache_site"


def choose_site(sites, hostname: str, port: int) -> Site | None:
    """Return the one of ``sites`` Wagtail serves ``hostname:port`` with, or None.

    Wagtail's own rule (``wagtail.models.sites.get_site_for_hostname``), over
    sites already read: the exact hostname and port; else that hostname if
    it is the default site's; else the only site of that hostname, or else
    the default site. ``tests/pagecache/test_sites.py`` pins that the two agree.
    """
    for site in sites:
        if site.hostname == hostname and site.port == port:
            return site
    default = next((site for site in sites if site.is_default_site), None)
    if default is not None and default.hostname == hostname:
        return default
    named = [site for site in sites if site.hostname == hostname]
    if default is None:
        return named[0] if len(named) == 1 else None
    return named[0] if len(named) == 1 else default


def _all_sites() -> list[Site]:
    """Return every site, its home page specific: one entry for any host asked."""
    sites = list(Site.objects.select_related("root_page"))
    homes = {}
    for site in sites:
        if site.root_page_id not in homes:
            homes[site.root_page_id] = site.root_page.specific
        site.root_page = homes[site.root_page_id]
    return sites


def find_site(request) -> Site | None:
    """Return the site serving this request, as ``Site.find_for_request`` would.

    Call it once the host is known to be allowed (``request.get_host()``
    checks it), so that no made-up host is looked up.
    """
    if hasattr(request, _FOUND):
        return getattr(request, _FOUND)
    hostname = split_domain_port(request.get_host())[0]
    try:
        port = int(request.get_port())
    except ValueError:
        port = None
    site = choose_site(remember_site("sites", _all_sites), hostname, port)
    setattr(request, _FOUND, site)
    return site


class SiteMiddleware:
    """Give each request its kept site before Wagtail looks for one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        site = find_site(request)
        if site is not None:
            request._wagtail_site = site
        return self.get_response(request)
