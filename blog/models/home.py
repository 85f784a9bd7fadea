"""The site root."""

from django.db import models
from django.http import Http404
from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField
from wagtail.models import Page

from blog.blocks import RICH_TEXT_FEATURES
from blog.models.base import (
    CountedPaginator,
    OneQueryViewRestrictions,
    listing_page,
)
from blog.models.post import PostPage, body_digest, live_post_pages
from blog.models.series import series_under
from pagecache.cache import remember

POSTS_PER_PAGE = 20


class HomePage(OneQueryViewRestrictions, Page):
    """The site root: author intro, recent updates and the sections."""

    author = models.CharField("作者", max_length=100, blank=True, default="")
    # The vault's root index.md when imported: text, lists and links, as a post's.
    intro = RichTextField("简介", blank=True, features=RICH_TEXT_FEATURES)

    parent_page_types = ["wagtailcore.Page"]
    subpage_types = [
        "blog.SeriesPage",
        "blog.PostPage",
        "blog.TagIndexPage",
        "blog.ArchivePage",
    ]
    max_count = 1
    # Titled with the site's name in its metadata (blog.seo).
    is_site_home = True

    content_panels = Page.content_panels + [FieldPanel("author"), FieldPanel("intro")]

    class Meta:
        verbose_name = "首页"

    def route(self, request, path_components):
        """Find the deepest page the URL names in one query, then let it route.

        Wagtail walks the tree one level at a time (two queries a level); URL
        paths are unique in a site, so the page can be looked up directly. The
        page it finds routes the rest itself (a tag URL under /tags/, say).
        Home itself is served as the request's site holds it: the site is kept
        between requests (``pagecache.sites``) until a site-wide purge, which
        publishing or unpublishing home makes.
        """
        if not path_components:
            return super().route(request, path_components)
        prefixes = [
            self.url_path + "".join(f"{part}/" for part in path_components[:n])
            for n in range(len(path_components) + 1)
        ]
        # A post comes with the page, in the same query (posts are most of
        # what is asked for): its own columns but the body, and the body's
        # digest.
        page = (
            Page.objects.filter(url_path__in=prefixes, path__startswith=self.path)
            .select_related("postpage")
            .defer("postpage__body")
            .annotate(stored_body_digest=body_digest("postpage__body"))
            .order_by("-depth")
            .first()
        )
        if page is None:
            raise Http404
        if issubclass(page.specific_class, PostPage):
            digest = page.stored_body_digest
            page = page.postpage
            page.stored_body_digest = digest
        else:
            page = page.specific
        remaining = path_components[page.depth - self.depth :]
        if page.depth == self.depth:
            if remaining:
                raise Http404
            return super(HomePage, page).route(request, remaining)
        return page.route(request, remaining)

    def get_purge_paths(self):
        """Every page: the header lists home's sections (see ``pagecache.purge``)."""
        return None

    def sections(self):
        """Return the top-level sections with their post counts, kept until purged."""
        return series_under(self)

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        posts = PostPage.objects.below(self).recently_updated().for_listing()
        counted = live_post_pages().descendant_of(self)
        paginator = CountedPaginator(
            posts,
            POSTS_PER_PAGE,
            count=lambda: remember(self.url_path, "count", counted.count),
        )
        context["posts"] = listing_page(paginator, request)
        context["sections"] = self.sections()
        return context
