"""Sections (`/cuda/`) and series (`/notes/csapp/`): folders of posts."""

from django.db import models
from django.db.models.functions import Substr
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path
from wagtail.fields import StreamField
from wagtail.models import Page, PageManager
from wagtail.query import PageQuerySet
from wagtail.search import index

from blog.blocks import PostBodyBlock
from blog.feeds import PostFeed
from blog.forms import StartOverPageForm
from blog.models.base import (
    LINK_COLUMNS,
    CountedPaginator,
    ImportedFrom,
    OneQueryViewRestrictions,
    SeriesOrdering,
    listing_page,
    readable,
)
from blog.models.body import RenderedBody
from blog.models.post import PostPage, live_post_pages
from blog.models.preview import Previewable
from blog.paths import feed_paths
from pagecache.cache import remember
from pagecache.purge import paths_of

POSTS_PER_PAGE = 30


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

        counts = remember(parent.url_path, "post-counts", count)
        for page in series:
            page.num_posts = counts.get(page.path, 0)
        return series


def series_under(parent):
    """Return the live series just under ``parent``, in explorer order, with counts.

    Kept until ``parent`` is purged, as publishing a series below it does.
    """
    return remember(
        parent.url_path,
        "series-under",
        lambda: (
            readable(SeriesPage.objects.child_of(parent).live())
            .order_by("path")
            .with_post_counts(parent)
        ),
    )


class SeriesPage(
    Previewable,
    RenderedBody,
    OneQueryViewRestrictions,
    RoutablePageMixin,
    ImportedFrom,
    Page,
):
    """A folder of posts: a section, or a series read in order."""

    Ordering = SeriesOrdering

    # A body like a post's: prose, code, math, callouts, images.
    intro = StreamField(PostBodyBlock(), blank=True, verbose_name="简介")
    cover = models.ForeignKey(
        "wagtailimages.Image",
        verbose_name="封面",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    ordering = models.CharField(
        "文章顺序",
        max_length=16,
        choices=Ordering.choices,
        default=Ordering.EXPLORER,
        help_text="系列按阅读顺序；栏目一般按最新在前。",
    )

    objects = PageManager.from_queryset(SeriesPageQuerySet)()
    body_field = "intro"
    # Serves <url>feed/, linked from its <head> (blog.seo).
    has_feed = True

    parent_page_types = ["blog.HomePage", "blog.SeriesPage"]
    subpage_types = ["blog.PostPage", "blog.SeriesPage"]

    base_form_class = StartOverPageForm
    content_panels = Page.content_panels + [
        FieldPanel("intro"),
        FieldPanel("cover"),
        FieldPanel("ordering"),
    ]
    search_fields = Page.search_fields + [index.SearchField("intro")]

    class Meta:
        # Made by the series app, which owned this model before blog 0008.
        db_table = "series_seriespage"
        verbose_name = "栏目 / 系列"
        verbose_name_plural = "栏目 / 系列"

    @property
    def body(self):
        """Return the intro, rendered and kept as a post's body is (RenderedBody)."""
        return self.intro

    def listing_paths(self):
        """Return the paths of this listing and of its feed."""
        return paths_of([self]) | feed_paths(self)

    def get_purge_paths(self):
        """Every page: the explorer beside every page lists every section and
        series (``blog.explorer``), and the header the top-level ones."""
        return None

    def posts(self):
        """Return the live posts this page lists.

        A series lists its own posts in reading order; a section lists every
        post under it, nested series included, newest first.
        """
        posts = PostPage.objects.visible().for_listing()
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
            count=lambda: remember(self.url_path, "count", pages.count),
        )

    def subseries(self):
        """Return the live series nested in this one, in explorer order."""
        return series_under(self)

    def post_count(self) -> int:
        """Return the number of live posts anywhere under this page."""
        if hasattr(self, "num_posts"):
            return self.num_posts
        return live_post_pages().descendant_of(self).count()

    def breadcrumbs(self):
        """Return the live sections and series above this one, kept until purged.

        Renaming, moving or unpublishing any of them purges every page.
        """
        return remember(
            self.url_path,
            "breadcrumbs",
            lambda: list(
                SeriesPage.objects.ancestor_of(self)
                .live()
                .only(*LINK_COLUMNS)
                .order_by("path")
            ),
        )

    @path("feed/")
    def feed(self, request):
        """Serve an Atom feed of the latest posts anywhere under this page."""
        return PostFeed(
            PostPage.objects.below(self),
            title=self.title,
            subtitle=f"「{self.title}」的最新文章",
            link=self.get_url(request),
        )(request)

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        if self.intro:
            context.update(self.body_context(request))
        paginator = self.posts_paginator()
        context["posts"] = listing_page(paginator, request)
        subseries = list(self.subseries())
        context["subseries"] = subseries
        context["breadcrumbs"] = self.breadcrumbs()
        if self.ordering == self.Ordering.NEWEST:
            # Already counted: every post under this page.
            context["post_count"] = paginator.count
        else:
            # Its own posts, and those of the series in it (counted at any depth).
            nested = sum(series.num_posts or 0 for series in subseries)
            context["post_count"] = paginator.count + nested
        return context
