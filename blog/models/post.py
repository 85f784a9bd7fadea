"""Posts and their tags."""

import datetime
import itertools

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import MD5, Cast, Length, Substr
from django.urls import reverse
from django.utils.functional import cached_property
from modelcluster.contrib.taggit import ClusterTaggableManager
from modelcluster.fields import ParentalKey
from taggit.models import TaggedItemBase
from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.fields import StreamField
from wagtail.models import (
    Page,
    PageManager,
    PageViewRestriction,
    ReferenceIndex,
    Revision,
)
from wagtail.query import PageQuerySet
from wagtail.search import index

from blog.blocks import PostBodyBlock
from blog.forms import PostPageForm
from blog.graph import layout as graph_layout
from blog.models.base import (
    LINK_COLUMNS,
    ImportedFrom,
    OneQueryViewRestrictions,
    SeriesOrdering,
    readable,
    site_has_view_restrictions,
)
from blog.models.body import RenderedBody
from blog.models.changes import purge_paths_of_post, shown_state, tags_netted
from blog.models.plain_rows import RowsLoadedPlainly
from blog.models.preview import Previewable
from blog.text import body_text
from pagecache.cache import remember, remember_at
from pagecache.purge import as_page_ids
from search import query as search_query
from search.tokens import index_text

# What a post card shows (listing_tags.CARD_FIELDS), and what its URL and
# the page cache's tokens are worked out from.
CARD_COLUMNS = (*LINK_COLUMNS, "summary", "date", "updated")


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


# How many posts 最近更新 beside every page lists (blog.explorer).
RECENT_COUNT = 6

# How many related posts a post's end lists, and how many of its section's
# nearest posts on each side it reads for them and for previous/next.
RELATED_COUNT = 4
SECTION_WINDOW = RELATED_COUNT + 1

# Newest first, and the same order in the columns of PostTag's index, which a
# query of one tag's posts reads in order (PostTag.date).
NEWEST_FIRST = ("-date", "-pk")
TAGGED_ORDER = ("-tagged_items__date", "-tagged_items__content_object_id")


def body_digest(field: str) -> MD5:
    """Return a digest of the body the database holds in ``field``, made there."""
    return MD5(Cast(field, models.TextField()))


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
        return self.defer("body").annotate(stored_body_digest=body_digest("body"))

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

    def scheduled(self):
        """Return posts with a revision approved to go live later, soonest first.

        Each is annotated with ``scheduled_at``, the time it goes live.
        """
        schedules = Revision.page_revisions.filter(
            object_id=Cast(OuterRef("pk"), models.CharField()),
            approved_go_live_at__isnull=False,
        ).order_by("approved_go_live_at")
        return (
            self.annotate(
                scheduled_at=Subquery(schedules.values("approved_go_live_at")[:1])
            )
            .filter(scheduled_at__isnull=False)
            .defer_streamfields()
            .order_by("scheduled_at", "pk")
        )


def live_post_pages():
    """Return the live posts as rows of the page table alone, for counting them.

    Counting posts through the post model joins each post's own row, body and
    all, to its page: thousands of reads. Private posts are left out. The page
    table has an index on type, live and path (blog migration 0006), so a count
    of these rows, under a page or not, is read from that index alone.
    """
    post_type = ContentType.objects.get_for_model(PostPage)
    return readable(Page.objects.filter(content_type=post_type, live=True))


class PostPage(
    Previewable,
    RowsLoadedPlainly,
    OneQueryViewRestrictions,
    RenderedBody,
    ImportedFrom,
    Page,
):
    """An article."""

    summary = models.TextField(
        "摘要", blank=True, help_text="一两句话的摘要，显示在文章卡片和搜索结果中"
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
        verbose_name="封面",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    body = StreamField(PostBodyBlock(), blank=True, verbose_name="正文")
    allow_comments = models.BooleanField("允许评论", default=False)

    objects = PageManager.from_queryset(PostPageQuerySet)()
    # An article in its metadata: dates, tags, a BlogPosting (blog.seo).
    is_article = True

    parent_page_types = ["blog.HomePage", "blog.SeriesPage"]
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
    # Readers may comment when it is on (comments/); held for moderation.
    settings_panels = Page.settings_panels + [FieldPanel("allow_comments")]
    # Title, summary, body and tags go to the index as one pre-tokenised text
    # (see search/tokens.py), so SQLite and PostgreSQL see the same words.
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
        # The posts the saved version links to: one a publish stops linking to
        # loses a backlink and a node of its graph, and is purged too.
        fields = kwargs.get("update_fields")
        if self.pk and self.live and fields is None:
            self.linked_before = list(
                self.linked_page_ids().values_list("page_id", flat=True)
            )
        # What listings and the explorer showed of it: a publish purges by
        # what changed (blog.models.changes).
        self.shown_before = shown_state(self) if fields is None else None
        with tags_netted(self):
            super().save(*args, **kwargs)
        # Tags saved with the page took its date already (PostTag.save); a save
        # that left them alone must still carry a new date to them. A draft's
        # revision saves other fields only, and its date stays in the draft.
        if fields is None or "date" in fields:
            PostTag.objects.filter(content_object=self).exclude(date=self.date).update(
                date=self.date
            )

    def clean(self):
        super().clean()
        if self.updated and self.date and self.updated < self.date:
            raise ValidationError({"updated": "更新日期不能早于发布日期。"})

    @classmethod
    def get_indexed_objects(cls):
        """Index posts with their tags fetched alongside: ``search_text`` reads them."""
        return super().get_indexed_objects().prefetch_related("tags")

    def get_purge_paths(self):
        """Return the paths of the pages that show what this save changed
        (``blog.models.changes``): never every page."""
        return purge_paths_of_post(self, RECENT_COUNT)

    def linked_page_ids(self):
        """Return a subquery of the ids of the pages this one's content links to."""
        linked = ReferenceIndex.get_references_for_object(self).filter(
            to_content_type=ContentType.objects.get_for_model(Page)
        )
        return as_page_ids(linked, "to_object_id")

    def referrer_ids(self):
        """Return a subquery of the ids of the pages whose content links to this one."""
        referrers = ReferenceIndex.get_references_to(self).filter(
            base_content_type=ContentType.objects.get_for_model(Page)
        )
        return as_page_ids(referrers, "object_id")

    @classmethod
    def search_ids(cls, query: str) -> list[int]:
        """Return the ids of the public live posts matching ``query``, best first."""

        # Kept until the search page is purged, as every post published,
        # unpublished, moved or deleted purges it, and no longer than the
        # results page: anyone can ask for any query. A query that finds
        # nothing is not kept.
        def keep(name, compute):
            return remember_at(
                [reverse("search")],
                name,
                compute,
                seconds=settings.PAGE_CACHE_SEARCH_SECONDS,
                keep=bool,
            )

        return search_query.search_ids(query, cls.objects.visible(), keep=keep)

    @classmethod
    def search_hits(cls, ids, query: str) -> list:
        """Return these posts, one page of results, highlighted for ``query``.

        Two queries, and a third for the bodies whose text is not kept.
        """
        found = (
            cls.objects.filter(pk__in=list(ids))
            .for_listing()
            .with_body_digest()
            .prefetch_related(PostTag.prefetch())
            .in_bulk()
        )
        posts = [found[pk] for pk in ids if pk in found]
        return search_query.hits(posts, query, cls.snippet_passages)

    def search_text(self):
        """Return what search indexes: title, summary, body, code and tags, as tokens."""
        tags = " ".join(sorted(tag.name for tag in self.tags.all()))
        return index_text(
            " ".join([self.title, self.summary, body_text(self.body), tags])
        )

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

    @cached_property
    def navigation(self):
        """Return the breadcrumbs and the series' previous/next, kept until purged.

        What changes them (an ancestor renamed, a post of the series published,
        moved or unpublished) purges this page too (``pagecache.purge``).
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
            Page.objects.filter(
                path=parent_path, seriespage__ordering=SeriesOrdering.EXPLORER
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

    def siblings(self, posts=None):
        """Return ``posts`` (the public live ones) beside this one in its parent."""
        posts = PostPage.objects.visible() if posts is None else posts
        parent_path = self.path[: -self.steplen]
        return posts.filter(path__startswith=parent_path, depth=self.depth).exclude(
            pk=self.pk
        )

    def in_reading_order(self) -> bool:
        """Return whether this post's parent is a series read in explorer order."""
        return Page.objects.filter(
            path=self.path[: -self.steplen],
            seriespage__ordering=SeriesOrdering.EXPLORER,
        ).exists()

    def _window(self, siblings, reading_order: bool, size: int):
        """Return a filter of the ``size`` siblings nearest on each side, and a sort key.

        In explorer order in a series, by date elsewhere (before is older).
        """
        if reading_order:
            before = siblings.filter(path__lt=self.path).order_by("-path")
            after = siblings.filter(path__gt=self.path).order_by("path")

            def key(page):
                return page.path
        else:
            before = siblings.filter(
                Q(date__lt=self.date) | Q(date=self.date, pk__lt=self.pk)
            ).order_by("-date", "-pk")
            after = siblings.filter(
                Q(date__gt=self.date) | Q(date=self.date, pk__gt=self.pk)
            ).order_by("date", "pk")

            def key(page):
                return (page.date, page.pk)

        nearest = Q(pk__in=before.values("pk")[:size]) | Q(
            pk__in=after.values("pk")[:size]
        )
        return nearest, key

    def _split(self, rows, key, size: int):
        """Return the ``size`` siblings among ``rows`` nearest before and after."""
        parent_path = self.path[: -self.steplen]
        mine = key(self)
        beside = sorted(
            (
                row
                for row in rows
                if row.depth == self.depth and row.path.startswith(parent_path)
            ),
            key=key,
        )
        before = [row for row in reversed(beside) if key(row) < mine]
        after = [row for row in beside if key(row) > mine]
        return before[:size], after[:size]

    def section_window(self, size: int = SECTION_WINDOW):
        """Return the ``size`` posts of the parent nearest before and after this one.

        Nearest first on each side; the first of each is the previous and the
        next post. Whether this post is live does not matter, so after an
        unpublish the window is still the posts whose end showed it.
        """
        # Private posts too: purging their paths does no harm, and spares
        # asking which posts are private.
        siblings = self.siblings(PostPage.objects.live())
        nearest, key = self._window(siblings, self.in_reading_order(), size)
        rows = siblings.filter(nearest).only(*LINK_COLUMNS, "date")
        return self._split(rows, key, size)

    @staticmethod
    def posts_sharing_tags(tags):
        """Return the live posts with any of ``tags``, as their paths (for purges)."""
        return (
            PostPage.objects.live()
            .filter(tagged_items__tag__in=list(tags))
            .distinct()
            .only("url_path")
        )

    def find_post_end(self):
        """Return the previous and next posts and the related ones, in one query.

        In a series, previous/next are the series' (``find_navigation``);
        elsewhere, the section's posts beside this one by date. Related posts
        share most tags with this one (then newest first), and are filled up
        with the section's posts nearest to it; previous and next are not
        repeated among them.
        """
        if self.pk is None or self.date is None:
            # The preview of a post not saved yet, or not dated: nothing to
            # place it among.
            return {"previous": None, "next": None, "related": []}
        series = self.navigation["series"]
        posts = PostPage.objects.visible()
        # A post alone in its series has no neighbours in any order.
        nearest, key = self._window(
            self.siblings(posts), series is not None, SECTION_WINDOW
        )
        tags = PostTag.objects.filter(content_object_id=self.pk).values("tag_id")
        # Previous and next may be among the best ranked: two more to spare.
        ranked = (
            posts.filter(tagged_items__tag_id__in=tags)
            .exclude(pk=self.pk)
            .annotate(shared=Count("tagged_items"))
            .order_by("-shared", "-date", "-pk")
            .values("pk")[: RELATED_COUNT + 2]
        )
        rows = list(
            posts.filter(nearest | Q(pk__in=ranked))
            .annotate(
                shared=Count("tagged_items", filter=Q(tagged_items__tag_id__in=tags))
            )
            .only(*LINK_COLUMNS, "date")
        )
        before, after = self._split(rows, key, SECTION_WINDOW)
        if series is not None:
            previous, following = series["previous"], series["next"]
        else:
            previous = before[0] if before else None
            following = after[0] if after else None
        taken = {page.pk for page in (previous, following) if page is not None}
        related = sorted(
            (row for row in rows if row.shared and row.pk not in taken),
            key=lambda row: (-row.shared, -row.date.toordinal(), -row.pk),
        )[:RELATED_COUNT]
        taken |= {row.pk for row in related}
        # The section's posts nearest first, alternating sides.
        related += [
            page
            for pair in itertools.zip_longest(before, after)
            for page in pair
            if page is not None and page.pk not in taken
        ][: RELATED_COUNT - len(related)]
        return {"previous": previous, "next": following, "related": related}

    def feed_links(self, request, tags):
        """Return (title, URL) of the feeds this post is in: site, parent, ``tags``."""
        links = [("全站", reverse("feed"))]
        crumbs = self.navigation["breadcrumbs"]
        parent_path = self.path[: -self.steplen]
        if crumbs and crumbs[-1].path == parent_path:
            parent_url = crumbs[-1].get_url(request)
            if parent_url:
                links.append((crumbs[-1].title, parent_url + "feed/"))
        for tag in tags:
            links.append((f"#{tag.name}", f"/tags/{tag.slug}/feed/"))
        return links

    def backlinks(self):
        """Return the live, public posts whose content links to this one.

        Wagtail's reference index records every page link on save; one query
        joins it.
        """
        return self.public_posts(Q(pk__in=self.referrer_ids()))

    def neighbours(self) -> dict:
        """Return the live, public posts linking ``in`` to this one and ``out`` of it.

        Both from one query of the reference index; a post may be in both.
        """
        incoming = Q(pk__in=self.referrer_ids())
        outgoing = Q(pk__in=self.linked_page_ids())
        posts = self.public_posts(incoming | outgoing).annotate(
            links_here=models.ExpressionWrapper(
                incoming, output_field=models.BooleanField()
            ),
            linked_from_here=models.ExpressionWrapper(
                outgoing, output_field=models.BooleanField()
            ),
        )
        found = {"in": [], "out": []}
        for post in posts:
            if post.links_here:
                found["in"].append(post)
            if post.linked_from_here:
                found["out"].append(post)
        return found

    def public_posts(self, condition):
        """Return the live posts meeting ``condition`` but this one, newest first.

        Posts under a view restriction are excluded in the same query
        (Wagtail's `public()` would cost a second one).
        """
        restricted = PageViewRestriction.objects.filter(
            page__path=Substr(OuterRef("path"), 1, Length("page__path"))
        )
        return (
            PostPage.objects.live()
            .filter(condition)
            .exclude(pk=self.pk)
            .exclude(models.Exists(restricted))
            .only(*LINK_COLUMNS, "date")
            .order_by("-date", "-pk")
        )

    def graph(self, neighbours) -> dict | None:
        """Return the layout of the post's neighbourhood (``blog.graph``), or None."""
        crumbs = self.navigation["breadcrumbs"]
        parent_path = self.path[: -self.steplen]
        parent = crumbs[-1] if crumbs and crumbs[-1].path == parent_path else None
        series = self.navigation["series"] or {}
        return graph_layout(
            self,
            parent=parent,
            previous=series.get("previous"),
            next=series.get("next"),
            outgoing=neighbours["out"],
            incoming=neighbours["in"],
        )

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context["post_tags"] = self.shown_tags(request)
        context["breadcrumbs"] = self.navigation["breadcrumbs"]
        context["series_nav"] = self.navigation["series"]
        # A post that links here or that this one links to, published, moved
        # or no longer linking, purges this page (``get_purge_paths``).
        neighbours = remember(self.url_path, "neighbours", self.neighbours)
        context["backlinks"] = neighbours["in"]
        context["graph"] = self.graph(neighbours)
        # What the post's end shows beside it: changed only by a publish,
        # unpublish or move of one of them, which purges this page.
        context["post_end"] = remember(self.url_path, "post-end", self.find_post_end)
        context["post_feeds"] = self.feed_links(request, context["post_tags"])
        context.update(self.body_context(request))
        return context
