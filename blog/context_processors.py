from django.conf import settings
from wagtail.models import Site

from blog.models import LINK_COLUMNS, SeriesPage
from blog.models.base import readable
from pagecache.cache import remember_site


def top_sections(request) -> list:
    """Return the site's top-level sections a reader may see, in the header's order.

    Kept until the next site-wide purge: a change to a top-level section, or
    to a view restriction, is one. A private section is not named (as in the
    explorer), even to a reader past its restriction: the list is shared.
    """
    site = Site.find_for_request(request)
    if site is None:
        return []
    return remember_site(
        f"nav-sections:{site.pk}",
        lambda: list(
            readable(SeriesPage.objects.child_of(site.root_page).live())
            .order_by("path")
            .only(*LINK_COLUMNS)
        ),
    )


def site_navigation(request):
    """Give every template the site name and the top-level sections.

    The sections are evaluated lazily, so pages that don't show the header pay
    nothing; the site is the one the request already found.
    """
    site = Site.find_for_request(request)
    return {
        # The site's own name (Wagtail's Sites setting, or an import's), else
        # the deployment's.
        "site_name": (site.site_name if site else "") or settings.WAGTAIL_SITE_NAME,
        "nav_sections": lambda: top_sections(request),
    }
