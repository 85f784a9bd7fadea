from django.conf import settings
from wagtail.models import Site

from series.models import SeriesPage


def site_navigation(request):
    """Give every template the site name and the top-level sections.

    Evaluated lazily, so pages that don't show the header pay nothing.
    """

    def sections():
        site = Site.find_for_request(request)
        if site is None:
            return SeriesPage.objects.none()
        return SeriesPage.objects.child_of(site.root_page).live().order_by("path")

    return {"site_name": settings.WAGTAIL_SITE_NAME, "nav_sections": sections}
