"""The tag index and each tag's page and feed."""

from django.conf import settings
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from taggit.models import Tag
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path, re_path
from wagtail.fields import RichTextField
from wagtail.models import Page

from blog.feeds import PostFeed
from blog.models.base import (
    CountedPaginator,
    OneQueryViewRestrictions,
    listing_page,
)
from blog.models.post import TAGGED_ORDER, PostPage
from blog.paths import tag_paths
from pagecache.cache import remember
from pagecache.purge import paths_of

POSTS_PER_PAGE = 20


class TagIndexPage(OneQueryViewRestrictions, RoutablePageMixin, Page):
    """Every tag with its post count, and one page per tag."""

    intro = RichTextField(blank=True, features=["bold", "italic", "link"])

    parent_page_types = ["blog.HomePage"]
    subpage_types = []
    max_count = 1

    content_panels = Page.content_panels + [FieldPanel("intro")]

    class Meta:
        verbose_name = "标签索引"

    def get_purge_paths(self):
        """Return its paths and every tag's page and feed (see ``pagecache.purge``)."""
        return paths_of([self]) | tag_paths(Tag.objects.all())

    def tags_with_counts(self):
        """Return tags used by live posts, with `num_posts`, most used first."""
        live = Q(
            blog_posttag_items__content_object__in=PostPage.objects.visible().values(
                "pk"
            )
        )
        return (
            Tag.objects.annotate(num_posts=Count("blog_posttag_items", filter=live))
            .filter(num_posts__gt=0)
            .order_by("-num_posts", "name")
        )

    @path("")
    def tag_index(self, request):
        def tags():
            # Each tag's URL below this page, reversed once, not on every view.
            found = list(self.tags_with_counts())
            for tag in found:
                tag.subpage_url = self.reverse_subpage("tag_detail", args=[tag.slug])
            return found

        return self.render(
            request,
            context_overrides={
                "tags": remember(self.url_path, "linked-tags", tags),
                "page_url": self.get_url(request),
            },
        )

    @re_path(r"^(?P<slug>[-\w]+)/$")
    def tag_detail(self, request, slug):
        tag = get_object_or_404(Tag, slug=slug)
        posts = PostPage.objects.visible().tagged(tag).for_listing()
        counted = PostPage.objects.visible().filter(tags=tag)
        paginator = CountedPaginator(
            posts,
            POSTS_PER_PAGE,
            count=lambda: remember(
                f"{self.url_path}{tag.slug}/", "count", counted.count
            ),
        )
        page = listing_page(paginator, request)
        if not page.paginator.count:
            raise Http404("No post has this tag.")
        return self.render(
            request,
            template="blog/tag_page.html",
            context_overrides={"tag": tag, "posts": page},
        )

    @re_path(r"^(?P<slug>[-\w]+)/feed/$")
    def tag_feed(self, request, slug):
        # Like the tag's page, a feed exists while a public live post has the tag.
        used = Tag.objects.filter(
            blog_posttag_items__content_object__in=PostPage.objects.visible().values(
                "pk"
            )
        )
        tag = get_object_or_404(used.distinct(), slug=slug)
        return PostFeed(
            PostPage.objects.filter(tagged_items__tag=tag),
            title=f"#{tag.name} · {settings.WAGTAIL_SITE_NAME}",
            subtitle=f"标签 #{tag.name} 的最新文章",
            link=self.get_url(request)
            + self.reverse_subpage("tag_detail", args=[tag.slug]),
            order=TAGGED_ORDER,
        )(request)
