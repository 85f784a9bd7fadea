"""What every page of the blog shares: link columns, counting, view restrictions."""

from django.core.paginator import Paginator
from django.db import models
from django.db.models.functions import Coalesce
from django.utils.functional import cached_property
from wagtail.models import Page, PageViewRestriction

from pagecache.cache import remember_site
from pagecache.query import reads_query

# What a link to a page needs: its title, and what its URL is worked out from.
LINK_COLUMNS = ("title", "url_path", "path", "depth", "content_type_id")


class ImportedFrom(models.Model):
    """A page made by ``import_markdown``: where it came from, and that file's hash.

    The path is relative to the imported folder (see docs/markdown-format.md);
    re-importing matches pages on it and skips files whose hash is unchanged.
    """

    source_path = models.CharField(
        max_length=1024, blank=True, db_index=True, editable=False
    )
    source_hash = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        abstract = True


class SeriesOrdering(models.TextChoices):
    """How a section or series orders its posts."""

    EXPLORER = "explorer", "阅读顺序（按页面树中的顺序，可拖动调整）"
    NEWEST = "newest", "最新在前（按发布日期）"


def readable(pages):
    """Return ``pages`` without those under a view restriction, if there are any.

    A page behind a password, a login or a group is no reader's business: not
    listed, not counted, not linked to. Wagtail's ``public()`` reads every
    restriction to exclude them; a site without any skips it.
    """
    return pages.public() if site_has_view_restrictions() else pages


def may_see(request, page) -> bool:
    """Whether this request may see ``page`` outside Wagtail's own serving.

    For every view that shows anything of a page (comments, fragments): the
    page is live, and the request has passed each of its view restrictions
    (the password given in this session, the login, the group), as Wagtail
    asks before serving it. A view answers a page it may not see as missing,
    naming nothing of it.
    """
    if not page.live:
        return False
    return all(
        restriction.accept_request(request)
        for restriction in page.get_view_restrictions()
    )


class CountedPaginator(Paginator):
    """A paginator told its number of items, by a cheaper way than the listing's.

    ``count`` returns exactly as many as the listing has.
    """

    def __init__(self, object_list, per_page, *, count, **kwargs):
        super().__init__(object_list, per_page, **kwargs)
        self.counter = count

    @cached_property
    def count(self):
        return self.counter()


def listing_page(paginator, request):
    """Return the page of a listing that ``?page=`` asks for (junk: the first or last).

    Tells the page cache the number shown, so that only ``?page=N`` as the
    listing's own links write it is cached (``pagecache.query``); the first
    page's links have no ``?page``.
    """
    page = paginator.get_page(request.GET.get("page"))
    reads_query(request, page=page.number if page.number > 1 else None)
    return page


def site_has_view_restrictions() -> bool:
    """Return whether any page of the site is private (a password, a login, groups).

    Kept until the next site-wide purge, which every change to a restriction
    makes (``pagecache.purge``), so a public blog asks it once, not per page.
    """
    return remember_site("view-restrictions", PageViewRestriction.objects.exists)


class OneQueryViewRestrictions:
    """A page mixin: find the view restrictions that apply in one query, or none.

    Wagtail reads the ancestors' alias sources, then their restrictions; every
    page served pays both. On a site without private pages there is nothing to
    read. Otherwise the ancestors are known from the page's path, and an alias
    takes its source's restrictions (Wagtail never aliases an alias), so a
    subquery does the first step. The blog's page models all use it.
    """

    def get_view_restrictions(self):
        if not site_has_view_restrictions():
            return PageViewRestriction.objects.none()
        steplen = self.steplen
        paths = [self.path[:end] for end in range(steplen, len(self.path) + 1, steplen)]
        sources = (
            Page.objects.filter(path__in=paths)
            .annotate(source=Coalesce("alias_of_id", "id"))
            .values("source")
        )
        return PageViewRestriction.objects.filter(page_id__in=sources)
