"""SeriesPage: a top-level section (`/cuda/`) or a series (`/notes/csapp/`).

Series reach their posts through the page tree; this app never imports `blog`.
The post model is named by its label only, so the dependency points one way.
"""

from django.apps import apps
from django.core.paginator import Paginator
from django.db import models
from django.db.models.functions import Coalesce
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path
from wagtail.fields import RichTextField
from wagtail.models import Page, PageManager, PageViewRestriction
from wagtail.query import PageQuerySet
from wagtail.search import index

POST_MODEL = "blog.PostPage"
POSTS_PER_PAGE = 30


def post_model():
    """Return the post page model, looked up by label."""
    return apps.get_model(POST_MODEL)


class OneQueryViewRestrictions:
    """A page mixin: find the view restrictions that apply in one query, not two.

    Wagtail reads the ancestors' alias sources, then their restrictions; every
    page served pays both. The ancestors are known from the page's path, and an
    alias takes its source's restrictions (Wagtail never aliases an alias), so
    a subquery does the first step. The blog's page models all use it.
    """

    def get_view_restrictions(self):
        steplen = self.steplen
        paths = [self.path[:end] for end in range(steplen, len(self.path) + 1, steplen)]
        sources = (
            Page.objects.filter(path__in=paths)
            .annotate(source=Coalesce("alias_of_id", "id"))
            .values("source")
        )
        return PageViewRestriction.objects.filter(page_id__in=sources)


class SeriesPageQuerySet(PageQuerySet):
    def annotate_post_counts(self):
        """Annotate each series with `num_posts`: its live posts at any depth.

        One correlated subquery, so a list of sections costs one query.
        """
        posts = (
            post_model()
            .objects.live()
            .filter(path__startswith=models.OuterRef("path"))
            .order_by()
            .annotate(n=models.Func("pk", function="COUNT"))
            .values("n")
        )
        return self.annotate(num_posts=models.Subquery(posts))


class SeriesPage(OneQueryViewRestrictions, RoutablePageMixin, Page):
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
        posts = post_model().objects.live().for_listing()
        if self.ordering == self.Ordering.NEWEST:
            return posts.descendant_of(self).order_by("-date", "-pk")
        return posts.child_of(self).order_by("path")

    def subseries(self):
        """Return the live series nested in this one, in explorer order."""
        return (
            SeriesPage.objects.child_of(self)
            .live()
            .annotate_post_counts()
            .order_by("path")
        )

    def post_count(self) -> int:
        """Return the number of live posts anywhere under this page."""
        if hasattr(self, "num_posts"):
            return self.num_posts
        return post_model().objects.descendant_of(self).live().count()

    @path("feed/")
    def feed(self, request):
        """Serve an Atom feed of the latest posts anywhere under this page.

        The post model builds it (`feed_response`), reached by label like the
        rest of this module.
        """
        return post_model().feed_response(
            request,
            post_model().objects.descendant_of(self),
            title=self.title,
            subtitle=f"「{self.title}」的最新文章",
            link=self.get_url(request),
        )

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        paginator = Paginator(self.posts(), POSTS_PER_PAGE)
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
