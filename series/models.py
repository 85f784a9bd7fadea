"""SeriesPage: a top-level section (`/cuda/`) or a series (`/notes/csapp/`).

Series reach their posts through the page tree; this app never imports `blog`.
The post model is named by its label only, so the dependency points one way.
"""

import functools

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.paginator import Paginator
from django.db import models
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.functions import Coalesce, Substr
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init
from django.utils.functional import cached_property
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path
from wagtail.fields import RichTextField
from wagtail.models import Page, PageManager, PageViewRestriction
from wagtail.query import PageQuerySet
from wagtail.search import index

POST_MODEL = "blog.PostPage"
# What a link to a page needs: its title, and what its URL is worked out from.
LINK_COLUMNS = ("title", "url_path", "path", "depth", "content_type_id")
POSTS_PER_PAGE = 30


def post_model():
    """Return the post page model, looked up by label."""
    return apps.get_model(POST_MODEL)


def live_post_pages():
    """Return the live posts as rows of the page table alone, for counting them.

    Counting posts through the post model joins each post's own row, body and
    all, to its page: thousands of reads. Private posts are left out. The page table has an index on type,
    live and path (blog migration 0006), so a count of these rows, under a
    page or not, is read from that index alone.
    """
    post_type = ContentType.objects.get_for_model(post_model())
    return readable(Page.objects.filter(content_type=post_type, live=True))


def readable(pages):
    """Return ``pages`` without those under a view restriction, if there are any.

    A page behind a password, a login or a group is no reader's business: not
    listed, not counted, not linked to. Wagtail's ``public()`` reads every
    restriction to exclude them; a site without any skips it.
    """
    return pages.public() if site_has_view_restrictions() else pages


def remember(page, name, compute):
    """Return ``compute()`` for ``page``, kept until the page is purged.

    The post model keeps it (in the blog's page cache), reached by label.
    """
    return post_model().remember(page.url_path, name, compute)


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


def site_has_view_restrictions() -> bool:
    """Return whether any page of the site is private (a password, a login, groups).

    Kept until the next site-wide purge, which every change to a restriction
    makes (``blog.invalidation``), so a public blog asks it once, not per page.
    """
    return post_model().remember_site(
        "view-restrictions", PageViewRestriction.objects.exists
    )


class RowsLoadedPlainly:
    """A page mixin: build the rows read from the database without ``__init__``.

    ClusterableModel and Wagtail's page mixins extend ``__init__`` for objects
    being created: child relations passed as arguments, a default content type
    and menu flag. A row read from the database is none of those, and Django's
    own ``__init__`` walks all forty fields of a page, deferred or not, to set
    each loaded one. An archive page of 200 rows spent a fifth of its time
    there. A loaded value goes straight into the instance, as Django's field
    descriptors would put it; a field with a descriptor of its own (a
    StreamField) is set through it. Models with init signals are built the
    usual way. The blog's page models all use it.
    """

    @classmethod
    def from_db(cls, db, field_names, values):
        if pre_init.has_listeners(cls) or post_init.has_listeners(cls):
            return super().from_db(db, field_names, values)
        page = cls.__new__(cls)
        page._state = ModelState()
        page._state.adding = False
        page._state.db = db
        # In a row with deferred fields, values holds the loaded ones in order.
        plain = _plainly_set(cls)
        loaded = page.__dict__
        for name, value in zip(field_names, values, strict=True):
            if name in plain:
                loaded[name] = value
            else:
                setattr(page, name, value)
        return page


@functools.cache
def _plainly_set(model) -> frozenset[str]:
    """Return the fields of ``model`` whose descriptor only stores the value."""
    return frozenset(
        field.attname
        for field in model._meta.concrete_fields
        if type(getattr(model, field.attname, None))
        in (DeferredAttribute, ForeignKeyDeferredAttribute)
    )


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


class SeriesPageQuerySet(PageQuerySet):
    def with_post_counts(self, parent):
        """Return these series, children of ``parent``, each with ``num_posts``.

        ``num_posts`` counts its live posts at any depth. One grouped query over
        the page table's index counts them all, kept until ``parent`` is purged.
        """
        series = list(self)
        if not series:
            return series
        length = series[0].depth * Page.steplen

        def count():
            rows = (
                live_post_pages()
                .descendant_of(parent)
                .annotate(prefix=Substr("path", 1, length))
                .order_by()
                .values_list("prefix")
                .annotate(n=models.Count("pk"))
            )
            return dict(rows)

        counts = remember(parent, "post-counts", count)
        for page in series:
            page.num_posts = counts.get(page.path, 0)
        return series


def series_under(parent):
    """Return the live series just under ``parent``, in explorer order, with counts.

    Kept until ``parent`` is purged, as publishing a series below it does.
    """
    return remember(
        parent,
        "series-under",
        lambda: (
            readable(SeriesPage.objects.child_of(parent).live())
            .order_by("path")
            .with_post_counts(parent)
        ),
    )


class SeriesPage(RowsLoadedPlainly, OneQueryViewRestrictions, RoutablePageMixin, Page):
    """A folder of posts: a section, or a series read in order."""

    class Ordering(models.TextChoices):
        EXPLORER = "explorer", "阅读顺序（按页面树中的顺序，可拖动调整）"
        NEWEST = "newest", "最新在前（按发布日期）"

    intro = RichTextField(blank=True, features=["bold", "italic", "code", "link"])
    cover = models.ForeignKey(
        "wagtailimages.Image",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    ordering = models.CharField(
        max_length=16,
        choices=Ordering.choices,
        default=Ordering.EXPLORER,
        help_text="系列按阅读顺序；栏目一般按最新在前。",
    )
    # The imported folder this series came from (see docs/markdown-format.md).
    source_path = models.CharField(
        max_length=1024, blank=True, db_index=True, editable=False
    )
    source_hash = models.CharField(max_length=64, blank=True, editable=False)

    objects = PageManager.from_queryset(SeriesPageQuerySet)()

    parent_page_types = ["blog.HomePage", "series.SeriesPage"]
    subpage_types = [POST_MODEL, "series.SeriesPage"]

    content_panels = Page.content_panels + [
        FieldPanel("intro"),
        FieldPanel("cover"),
        FieldPanel("ordering"),
    ]
    search_fields = Page.search_fields + [index.SearchField("intro")]

    class Meta:
        verbose_name = "栏目 / 系列"
        verbose_name_plural = "栏目 / 系列"

    def posts(self):
        """Return the live posts this page lists.

        A series lists its own posts in reading order; a section lists every
        post under it, nested series included, newest first.
        """
        posts = post_model().objects.visible().for_listing()
        if self.ordering == self.Ordering.NEWEST:
            return posts.below(self).order_by("-date", "-pk")
        return posts.child_of(self).order_by("path")

    def posts_paginator(self):
        """Return the listing's paginator, counting from the page table."""
        pages = live_post_pages()
        if self.ordering == self.Ordering.NEWEST:
            pages = pages.descendant_of(self)
        else:
            pages = pages.child_of(self)
        return CountedPaginator(
            self.posts(),
            POSTS_PER_PAGE,
            count=lambda: remember(self, "count", pages.count),
        )

    def subseries(self):
        """Return the live series nested in this one, in explorer order."""
        return series_under(self)

    def post_count(self) -> int:
        """Return the number of live posts anywhere under this page."""
        if hasattr(self, "num_posts"):
            return self.num_posts
        return live_post_pages().descendant_of(self).count()

    @path("feed/")
    def feed(self, request):
        """Serve an Atom feed of the latest posts anywhere under this page.

        The post model builds it (`feed_response`), reached by label like the
        rest of this module.
        """
        return post_model().feed_response(
            request,
            post_model().objects.below(self),
            title=self.title,
            subtitle=f"「{self.title}」的最新文章",
            link=self.get_url(request),
        )

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        paginator = self.posts_paginator()
        context["posts"] = paginator.get_page(request.GET.get("page"))
        subseries = list(self.subseries())
        context["subseries"] = subseries
        if self.ordering == self.Ordering.NEWEST:
            # Already counted: every post under this page.
            context["post_count"] = paginator.count
        else:
            # Its own posts, and those of the series in it (counted at any depth).
            nested = sum(series.num_posts or 0 for series in subseries)
            context["post_count"] = paginator.count + nested
        return context
