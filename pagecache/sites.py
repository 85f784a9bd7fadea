"""Find the Wagtail Site of a request without asking the database each time.

Wagtail looks the site up by host and port on every request (one query with a
ranked CASE), then reads its home page (a second query) to start routing.
Both change only through the admin, and every change to a site purges the
whole page cache (``pagecache.purge``). So the site, with its home page
already specific, is kept under the page cache's site token, and handed to
Wagtail the way Wagtail keeps it for the rest of a request:
``request._wagtail_site``, which ``Site.find_for_request`` reads first.

That attribute is not Wagtail's public API, and this module is the one place
that sets it: ``tests/pagecache/test_sites.py`` pins that Wagtail takes it, so
an upgrade that stops reading it fails there. Home is served as the kept site
holds it; deeper pages are looked up afresh (``HomePage.route``).
"""

from django.http.request import split_domain_port
from wagtail.models.sites import Site, get_site_for_hostname

from pagecache.cache import remember_site


def find_site(request) -> Site | None:
    """Return the site serving this request, as ``Site.find_for_request`` would.

    Call it once the host is known to be allowed (CommonMiddleware checks it),
    so that no made-up host fills the cache.
    """
    hostname = split_domain_port(request.get_host())[0]
    port = request.get_port()

    def lookup():
        try:
            site = get_site_for_hostname(hostname, port)
        except Site.DoesNotExist:
            return None
        site.root_page = site.root_page.specific
        return site

    return remember_site(f"site:{hostname}:{port}", lookup)


class SiteMiddleware:
    """Give each request its kept site before Wagtail looks for one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        site = find_site(request)
        if site is not None:
            request._wagtail_site = site
        return self.get_response(request)
