"""Every post, by year."""

from itertools import groupby

from django.db.models import Count
from django.db.models.functions import ExtractYear
from django.utils import timezone
from wagtail.models import Page

from blog.models.base import (
    LINK_COLUMNS,
    CountedPaginator,
    OneQueryViewRestrictions,
    listing_page,
)
from blog.models.post import PostPage, live_post_pages
from blog.paths import sitemap_paths
from pagecache.cache import remember
from pagecache.purge import paths_of

# An archive line is one link: a page of them can be long.
ARCHIVE_PER_PAGE = 200


class ArchivePage(OneQueryViewRestrictions, Page):
    """Every post, grouped by year, newest first, a few hundred to a page."""

    parent_page_types = ["blog.HomePage"]
    subpage_types = []
    max_count = 1

    class Meta:
        verbose_name = "归档"

    def get_purge_paths(self):
        """Return its own paths and the sitemap's (see ``pagecache.purge``)."""
        return paths_of([self]) | sitemap_paths()

    def years(self, posts):
        """Return [(year, posts in the year, posts of the year on this page)].

        ``posts`` is one page of the archive; a year it splits is headed on
        both pages, with the year's whole count.
        """

        def count():
            return dict(
                PostPage.objects.visible()
                .annotate(year=ExtractYear("date"))
                .order_by()
                .values_list("year")
                .annotate(n=Count("pk"))
            )

        counts = remember(self.url_path, "years", count)
        return [
            (year, counts.get(year, 0), list(items))
            for year, items in groupby(posts, key=lambda p: p.date.year)
        ]

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        # Only the fields a line of the archive shows are loaded.
        posts = (
            PostPage.objects.visible()
            .order_by("-date", "-pk")
            .only(*LINK_COLUMNS, "date")
        )
        paginator = CountedPaginator(
            posts,
            ARCHIVE_PER_PAGE,
            count=lambda: remember(self.url_path, "count", live_post_pages().count),
        )
        page = listing_page(paginator, request)
        context["posts"] = page
        context["years"] = self.years(page.object_list)
        context["today"] = timezone.localdate()
        return context
