"""Pages of the blog: home, posts, tags and the archive."""

import datetime
import hashlib
import json
import secrets
from itertools import groupby

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count, OuterRef, Q
from django.db.models.functions import MD5, Cast, ExtractYear, Length, Substr
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.safestring import mark_safe
from modelcluster.contrib.taggit import ClusterTaggableManager
from modelcluster.fields import ParentalKey
from taggit.models import Tag, TaggedItemBase
from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path, re_path
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page, PageManager, PageViewRestriction, ReferenceIndex
from wagtail.query import PageQuerySet
from wagtail.search import index

from blog import reading
from blog.blocks import PostBodyBlock, body_anchors, body_headings
from blog.forms import PostPageForm
from config.security import allow_figure_scripts, figure_script_sources
from pagecache.cache import (
    kept,
    kept_many,
    page_tokens,
    pages_tokens,
    remember,
    remember_site,
)
from rendering import render_inline_text
from rendering.cache import make_key
from rendering.feed import absolutize_urls, as_character_data
from series.models import (
    LINK_COLUMNS,
    CountedPaginator,
    OneQueryViewRestrictions,
    RowsLoadedPlainly,
    SeriesPage,
    live_post_pages,
    readable,
    series_under,
    site_has_view_restrictions,
)

POSTS_PER_PAGE = 20
# What a post card shows (listing_tags.CARD_FIELDS), and what its URL and
# the page cache's tokens are worked out from.
CARD_COLUMNS = (*LINK_COLUMNS, "summary", "date", "updated")
# A rendered body is dropped with its page's cache tokens; the rest expire.
BODY_CACHE_SECONDS = 7 * 24 * 3600
# An archive line is one link: a page of them can be long.
ARCHIVE_PER_PAGE = 200


# Where the post template places the body: unique to this process, so no text
# of a page can be mistaken for it.
BODY_MARK = mark_safe(f"<!--body {secrets.token_hex(16)}-->")  # noqa: S308
_BODY_MARK_BYTES = BODY_MARK.encode()


def _with_body(response):
    """Have a post's response take its body's bytes once the template is rendered."""
    if "body_html" in (getattr(response, "context_data", None) or {}):
        response.add_post_render_callback(_place_body)
    return response


def _place_body(response):
    """Put the rendered body's bytes where the post template left its mark.

    And let the scripts of its figures run (config/security.py).
    """
    before, mark, after = response.content.partition(_BODY_MARK_BYTES)
    if mark:
        response.content = b"".join([before, response.context_data["body_html"], after])
    allow_figure_scripts(response, response.context_data["rendered"]["scripts"])
    return response


class PostTag(TaggedItemBase):
    """Joins a post to a tag."""

    content_object = ParentalKey(
        "PostPage", on_delete=models.CASCADE, related_name="tagged_items"
    )
    # The post's date, copied here so a tag's page reads its posts newest first
    # from one index and stops after a page of them, instead of sorting every
    # post with the tag (PostPageQuerySet.tagged). PostPage.save keeps it.
    date = models.DateField(editable=False)

    class Meta:
        indexes = [
            models.Index(
                fields=["tag", "-date", "-content_object"], name="posttag_tag_date_idx"
            )
        ]

    def save(self, *args, **kwargs):
        self.date = self.content_object.date
        super().save(*args, **kwargs)

    @classmethod
    def prefetch(cls):
        """Return the prefetch of posts' tags, each with its tag, in one query."""
        return models.Prefetch(
            "tagged_items", queryset=cls.objects.select_related("tag")
        )


# Newest first, and the same order in the columns of PostTag's index, which a
# query of one tag's posts reads in order (PostTag.date).
NEWEST_FIRST = ("-date", "-pk")
TAGGED_ORDER = ("-tagged_items__date", "-tagged_items__content_object_id")


class PostPageQuerySet(PageQuerySet):
    def below(self, page):
        """Return the posts anywhere under ``page``: ``descendant_of`` minus its depth.

        Wagtail's ``descendant_of`` adds ``depth >= n``; SQLite then reads the
        depth index and sorts every post, where the listing's own order index
        would stop after one page of them.
        """
        return self.filter(path__startswith=page.path).exclude(pk=page.pk)

    def for_listing(self):
        """Fetch only what a post card shows and its URL needs; not its tags.

        A page row is some forty columns, each built into the model and
        converted; a card reads eight. ``{% post_cards %}`` fetches the tags of
        the cards it has to render.
        """
        return self.only(*CARD_COLUMNS)

    def tagged(self, tag):
        """Return the posts with ``tag``, newest first, in its index's order."""
        return self.filter(tagged_items__tag=tag).order_by(*TAGGED_ORDER)

    def visible(self):
        """Return the live posts anyone may read: none under a password or login.

        Wagtail's ``public()`` adds a subquery over the view restrictions; a
        site without private pages has nothing for it to exclude.
        """
        return readable(self.live())

    def with_body_digest(self):
        """Defer the body; read a digest of the text the database holds for it.

        What the body renders to is kept in the render cache under that digest
        (``PostPage.body_digest``); the body itself is loaded only if a render
        needs it. The database hashes it: a post's JSON is tens or hundreds of
        kilobytes, which would otherwise be sent over and hashed here.
        """
        return self.defer("body").annotate(
            stored_body_digest=MD5(Cast("body", models.TextField()))
        )

    def for_feed(self, order=NEWEST_FIRST):
        """Return public live posts for a feed, newest first, as few columns as cards.

        ``order`` is newest first too, told in the columns of an index the
        posts' filter can read in order (``TAGGED_ORDER`` for a tag's posts).
        A feed entry's content is kept in the render cache under the body's
        digest; ``PostPage.feed_entries`` loads the posts it has to render.
        """
        return self.visible().for_listing().with_body_digest().order_by(*order)

    def recently_updated(self):
        """Return public live posts, most recently updated first (no bodies)."""
        return self.visible().defer_streamfields().order_by("-updated", "-date", "-pk")

    def drafts(self):
        """Return posts never published or with unpublished changes, latest first."""
        return (
            self.filter(Q(live=False) | Q(has_unpublished_changes=True))
            .defer_streamfields()
            .order_by(
                models.F("latest_revision_created_at").desc(nulls_last=True), "-pk"
            )
        )


class HomePage(RowsLoadedPlainly, OneQueryViewRestrictions, Page):
    """The site root: author intro, recent updates and the sections."""

    author = models.CharField(max_length=100, blank=True, default="")
    intro = RichTextField(blank=True, features=["bold", "italic", "code", "link"])

    parent_page_types = ["wagtailcore.Page"]
    subpage_types = [
        "series.SeriesPage",
        "blog.PostPage",
        "blog.TagIndexPage",
        "blog.ArchivePage",
    ]
    max_count = 1

    content_panels = Page.content_panels + [FieldPanel("author"), FieldPanel("intro")]

    class Meta:
        verbose_name = "首页"

    def route(self, request, path_components):
        """Find the deepest page the URL names in one query, then let it route.

        Wagtail walks the tree one level at a time (two queries a level); URL
        paths are unique in a site, so the page can be looked up directly. The
        page it finds routes the rest itself (a tag URL under /tags/, say).
        Home itself is looked up too: the site a request is served from keeps
        its root page between requests (``pagecache.sites``), which must not serve
        a home page older than the one published.
        """
        prefixes = [
            self.url_path + "".join(f"{part}/" for part in path_components[:n])
            for n in range(len(path_components) + 1)
        ]
        page = (
            Page.objects.filter(url_path__in=prefixes, path__startswith=self.path)
            .order_by("-depth")
            .first()
        )
        if page is None:
            raise Http404
        if issubclass(page.specific_class, PostPage):
            page = PostPage.objects.with_body_digest().get(pk=page.pk)
        else:
            page = page.specific
        remaining = path_components[page.depth - self.depth :]
        if page.depth == self.depth:
            if remaining:
                raise Http404
            return super(HomePage, page).route(request, remaining)
        return page.route(request, remaining)

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
        context["posts"] = paginator.get_page(request.GET.get("page"))
        context["sections"] = self.sections()
        return context


class PostPage(RowsLoadedPlainly, OneQueryViewRestrictions, Page):
    """An article."""

    summary = models.TextField(
        blank=True, help_text="一两句话的摘要，显示在文章卡片和搜索结果中"
    )
    date = models.DateField("发布日期", default=datetime.date.today)
    updated = models.DateField(
        "更新日期",
        default=datetime.date.today,
        help_text="最近一次重要更新；首页“最近更新”按它排序",
    )
    tags = ClusterTaggableManager(through=PostTag, blank=True)
    cover = models.ForeignKey(
        "wagtailimages.Image",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    body = StreamField(PostBodyBlock(), blank=True)
    comments = models.BooleanField("允许评论", default=False)
    # Where an imported post came from, relative to the imported folder, and a
    # hash of that file: re-importing matches on the path and skips unchanged files.
    source_path = models.CharField(
        max_length=1024, blank=True, db_index=True, editable=False
    )
    source_hash = models.CharField(max_length=64, blank=True, editable=False)

    objects = PageManager.from_queryset(PostPageQuerySet)()

    parent_page_types = ["blog.HomePage", "series.SeriesPage"]
    subpage_types = []

    base_form_class = PostPageForm
    content_panels = Page.content_panels + [
        FieldPanel("summary"),
        MultiFieldPanel(
            [
                FieldPanel("date"),
                FieldPanel("updated"),
                # A form field, not a model field: see PostPageForm.
                FieldPanel("significant_update", disable_comments=True),
                FieldPanel("tags"),
            ],
            heading="日期与标签",
        ),
        FieldPanel("cover"),
        FieldPanel("body"),
    ]
    settings_panels = Page.settings_panels + [FieldPanel("comments")]
    # Title, summary, body and tags go to the index as one pre-tokenised text
    # (see search/engine.py), so SQLite and PostgreSQL see the same words.
    search_fields = Page.search_fields + [
        index.SearchField("search_text"),
        index.FilterField("date"),
        index.FilterField("updated"),
    ]

    class Meta:
        verbose_name = "文章"
        verbose_name_plural = "文章"
        # Listings read posts in these orders and stop after a page of them.
        indexes = [
            models.Index(
                fields=["-updated", "-date", "-page_ptr"], name="post_recent_idx"
            ),
            models.Index(fields=["-date", "-page_ptr"], name="post_date_idx"),
        ]

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        # Tags saved with the page took its date already (PostTag.save); a save
        # that left them alone must still carry a new date to them. A draft's
        # revision saves other fields only, and its date stays in the draft.
        fields = kwargs.get("update_fields")
        if fields is None or "date" in fields:
            PostTag.objects.filter(content_object=self).exclude(date=self.date).update(
                date=self.date
            )

    def clean(self):
        super().clean()
        if self.updated and self.date and self.updated < self.date:
            raise ValidationError({"updated": "更新日期不能早于发布日期。"})

    # Series keep their listings' counts through this, reached by label.
    remember = staticmethod(remember)
    remember_site = staticmethod(remember_site)

    @classmethod
    def get_indexed_objects(cls):
        """Index posts with their tags fetched alongside: ``search_text`` reads them."""
        return super().get_indexed_objects().prefetch_related("tags")

    @classmethod
    def feed_response(
        cls, request, posts, *, title, link, subtitle="", order=NEWEST_FIRST
    ):
        """Return the Atom feed of ``posts``, a queryset of this model.

        Series build their feed through this, reaching the post model by its
        label (see series/models.py), so `series` never imports `blog`.
        """
        from blog.feeds import PostFeed

        feed = PostFeed(posts, title=title, link=link, subtitle=subtitle, order=order)
        return feed(request)

    def search_text(self):
        """Return what search indexes: title, summary, body, code and tags, as tokens."""
        from search.engine import body_text, index_text

        tags = " ".join(sorted(tag.name for tag in self.tags.all()))
        return index_text(
            " ".join([self.title, self.summary, body_text(self.body), tags])
        )

    def body_digest(self) -> str:
        """Return a digest of the body's content, for cache keys of what it renders.

        One string is hashed far quicker than hundreds of blocks are walked.
        A post loaded ``with_body_digest()`` has the digest of the text the
        database holds, and its body is never loaded while its renders are in
        the cache.
        """
        stored = self.__dict__.get("stored_body_digest")
        if stored and "body" not in self.__dict__:
            return stored
        text = json.dumps(
            list(self.body.raw_data), ensure_ascii=False, sort_keys=True, default=repr
        )
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def rendered(self, request=None):
        """Return the body's HTML, its table of contents and reading time.

        A body of hundreds of formulas and code blocks is hundreds of render
        cache reads, and the table of contents and reading time walk it again;
        all three are worked out once and kept as one render cache entry. Its
        key is the body's content and the page's page-cache tokens, so whatever
        purges the page (a linked page moved, an image replaced) renders it
        again. Returns a dict: ``html`` (UTF-8 bytes), ``toc``, ``minutes``,
        and whether there is ``math`` and ``code`` in it.
        """

        def render():
            html = str(
                self.body.render_as_block(context={"page": self, "request": request})
            )
            return {
                "html": html.encode(),
                "toc": self.toc,
                "minutes": self.reading_minutes,
                # What the page needs to load: KaTeX's CSS and fonts, Pygments' CSS.
                "math": 'class="katex' in html,
                "code": 'class="highlight' in html,
                "scripts": figure_script_sources(html),
            }

        def key():
            tokens = page_tokens(self.url_path)
            return make_key("post-body", [self.pk, tokens, self.body_digest()])

        return kept(key, render, BODY_CACHE_SECONDS)

    @classmethod
    def feed_entries(cls, posts, request, urls) -> list[dict]:
        """Return each post's feed entry: ``content`` and the names of its ``tags``.

        The content is the body for feed readers, as escaped XML character
        data, rendered with ``{"feed": True}`` in the block context: math as
        MathML only, code with inline styles, the interactive figure as a link,
        no heading anchors, every URL absolute against the post's in ``urls``.
        Kept in the render cache like ``rendered()``, all read in one call; the
        tags with it, since retagging a post publishes it and renaming a tag
        purges every page, and either drops the entry.
        """

        def keys():
            tokens = pages_tokens([post.url_path for post in posts])
            return [
                make_key("feed-entry", [post.pk, token, url, post.body_digest()])
                for post, token, url in zip(posts, tokens, urls, strict=True)
            ]

        def make(indexes):
            # The posts come with a card's columns (for_feed): load whole the
            # ones to render, in one query. One deleted meanwhile gets no
            # entry, and none is kept for it.
            pks = [posts[i].pk for i in indexes]
            whole = PostPage.objects.filter(pk__in=pks).in_bulk()
            tags = cls.tag_names(whole.values())
            return [
                {"content": render(whole[pk], urls[i]), "tags": tags[pk]}
                if pk in whole
                else None
                for pk, i in zip(pks, indexes, strict=True)
            ]

        def render(post, url):
            context = {"page": post, "request": request, "feed": True, "page_url": url}
            html = str(post.body.render_as_block(context=context))
            return as_character_data(absolutize_urls(html, url))

        entries = kept_many(len(posts), keys, make, BODY_CACHE_SECONDS)
        return [entry or {"content": "", "tags": []} for entry in entries]

    @classmethod
    def tag_names(cls, posts) -> dict[int, list[str]]:
        """Return the names of each post's tags in the order pages show them, one query."""
        rows = PostTag.objects.filter(content_object__in=posts).values_list(
            "content_object_id", "tag__name"
        )
        names = {post.pk: [] for post in posts}
        for pk, name in sorted(rows, key=lambda row: (row[1].lower(), row[1])):
            names[pk].append(name)
        return names

    def serve(self, request, *args, **kwargs):
        return _with_body(super().serve(request, *args, **kwargs))

    def serve_preview(self, request, mode_name):
        return _with_body(super().serve_preview(request, mode_name))

    @property
    def tag_list(self):
        """Return the post's tags, from the listing prefetch when there is one."""
        if "tagged_items" in getattr(self, "_prefetched_objects_cache", {}):
            tags = [item.tag for item in self.tagged_items.all()]
        else:
            tags = list(self.tags.all())
        return sorted(tags, key=lambda tag: tag.name.lower())

    def shown_tags(self, request):
        """Return the tags a reader sees on this post, kept until it is purged.

        Retagging a post is a publish, and renaming a tag purges every page;
        both purge this. A preview shows the tags of the form, held in memory.
        """
        if getattr(request, "is_preview", False):
            return self.tag_list
        return remember(self.url_path, "tag-list", lambda: self.tag_list)

    def series(self):
        """Return the series or section this post lives in, if any."""
        parent = self.get_parent().specific
        return parent if isinstance(parent, SeriesPage) else None

    def headings(self):
        """Return (anchor, text, level) for every heading of the body, for a TOC."""
        anchors = [a for block in body_anchors(self.body).values() for a in block]
        return [
            (anchor, text, level)
            for anchor, (_, level, text) in zip(
                anchors, body_headings(self.body), strict=True
            )
        ]

    @cached_property
    def toc(self):
        """Return the table of contents: dicts of anchor, level (2–4) and html.

        The heading text is typeset here, inline math included, so the template
        only places finished HTML. Pages show it from ``rendered()``.
        """
        return [
            {
                "anchor": anchor,
                "level": int(level[1]),
                # The renderer escapes everything that is not KaTeX output.
                "html": mark_safe(render_inline_text(text)),  # noqa: S308
            }
            for anchor, text, level in self.headings()
        ]

    @cached_property
    def reading_minutes(self) -> int:
        """Return the estimated reading time in minutes (see blog/reading.py)."""
        return reading.reading_minutes(self.body.raw_data)

    @cached_property
    def navigation(self):
        """Return the breadcrumbs and the series' previous/next, kept until purged.

        What changes them (an ancestor renamed, a post of the series published,
        moved or unpublished) purges this page too (``blog.invalidation``).
        """
        return remember(self.url_path, "navigation", self.find_navigation)

    def find_navigation(self):
        """Return the breadcrumbs and the series' previous/next, from one query.

        One query fetches the live ancestors below the home page (the
        breadcrumbs) and, when the parent is a series read in explorer order,
        the live posts beside this one; a second, on a site with private
        pages, the restrictions that hide some of them.
        Sections (ordered newest first) get no previous/next: their posts are
        not meant to be read in sequence.
        """
        steplen = self.steplen
        parent_path = self.path[:-steplen]
        ancestor_paths = [
            self.path[:end] for end in range(3 * steplen, len(self.path), steplen)
        ]
        in_series = models.Exists(
            SeriesPage.objects.filter(
                path=parent_path, ordering=SeriesPage.Ordering.EXPLORER
            )
        )
        siblings = Q(
            in_series,
            path__startswith=parent_path,
            depth=self.depth,
            content_type=ContentType.objects.get_for_model(PostPage),
        )
        rows = list(
            Page.objects.live()
            .filter(Q(path__in=ancestor_paths) | siblings | Q(pk=self.pk))
            .only(*LINK_COLUMNS)
            .order_by("path")
        )
        crumbs = [row for row in rows if row.path in ancestor_paths]
        posts = [row for row in rows if row.depth == self.depth]
        if site_has_view_restrictions():
            # A neighbour behind a restriction this post is not behind is left
            # out: its title is not this post's readers' to see.
            private = [
                path
                for path in PageViewRestriction.objects.values_list(
                    "page__path", flat=True
                )
                if not self.path.startswith(path)
            ]
            posts = [row for row in posts if not row.path.startswith(tuple(private))]
        parent = crumbs[-1] if crumbs and crumbs[-1].path == parent_path else None
        nav = {"breadcrumbs": crumbs, "series": None}
        # A draft seen in preview is not among the live posts: no position.
        position = next((i for i, row in enumerate(posts) if row.pk == self.pk), None)
        if parent is not None and position is not None and len(posts) > 1:
            nav["series"] = {
                "page": parent,
                "position": position + 1,
                "count": len(posts),
                "previous": posts[position - 1] if position > 0 else None,
                "next": posts[position + 1] if position + 1 < len(posts) else None,
            }
        return nav

    def backlinks(self):
        """Return the live, public posts whose content links to this one.

        Wagtail's reference index records every page link on save; one query
        joins it, and excludes posts under a view restriction (Wagtail's
        `public()` would cost a second query).
        """
        page_type = ContentType.objects.get_for_model(Page)
        referrers = (
            ReferenceIndex.get_references_to(self)
            .filter(base_content_type=page_type)
            .annotate(page_id=Cast("object_id", models.IntegerField()))
            .values("page_id")
        )
        restricted = PageViewRestriction.objects.filter(
            page__path=Substr(OuterRef("path"), 1, Length("page__path"))
        )
        return (
            PostPage.objects.live()
            .filter(pk__in=referrers)
            .exclude(pk=self.pk)
            .exclude(models.Exists(restricted))
            .only(*LINK_COLUMNS, "date")
            .order_by("-date", "-pk")
        )

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context["post_tags"] = self.shown_tags(request)
        context["breadcrumbs"] = self.navigation["breadcrumbs"]
        context["series_nav"] = self.navigation["series"]
        # A post that links here, published or moved, purges this page.
        context["backlinks"] = remember(
            self.url_path, "backlinks", lambda: list(self.backlinks())
        )
        rendered = self.rendered(request)
        # The template places a mark; the body's bytes go in after rendering
        # (_place_body): megabytes of KaTeX are copied once, not joined as
        # text at every level of the template and encoded again.
        context["rendered"] = {**rendered, "html": BODY_MARK}
        context["body_html"] = rendered["html"]
        return context


class TagIndexPage(
    RowsLoadedPlainly, OneQueryViewRestrictions, RoutablePageMixin, Page
):
    """Every tag with its post count, and one page per tag."""

    intro = RichTextField(blank=True, features=["bold", "italic", "link"])

    parent_page_types = ["blog.HomePage"]
    subpage_types = []
    max_count = 1

    content_panels = Page.content_panels + [FieldPanel("intro")]

    class Meta:
        verbose_name = "标签索引"

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
        page = paginator.get_page(request.GET.get("page"))
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
        return PostPage.feed_response(
            request,
            PostPage.objects.filter(tagged_items__tag=tag),
            title=f"#{tag.name} · {settings.WAGTAIL_SITE_NAME}",
            subtitle=f"标签 #{tag.name} 的最新文章",
            link=self.get_url(request)
            + self.reverse_subpage("tag_detail", args=[tag.slug]),
            order=TAGGED_ORDER,
        )


class ArchivePage(RowsLoadedPlainly, OneQueryViewRestrictions, Page):
    """Every post, grouped by year, newest first, a few hundred to a page."""

    parent_page_types = ["blog.HomePage"]
    subpage_types = []
    max_count = 1

    class Meta:
        verbose_name = "归档"

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
        page = paginator.get_page(request.GET.get("page"))
        context["posts"] = page
        context["years"] = self.years(page.object_list)
        context["today"] = timezone.localdate()
        return context
