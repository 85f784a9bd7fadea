"""Posts and their tags.

What a post's page shows beside the post (its navigation, links and end) is
assembled in ``blog.context``.
"""

import datetime

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import MD5, Cast
from django.urls import reverse
from modelcluster.contrib.taggit import ClusterTaggableManager
from modelcluster.fields import ParentalKey
from taggit.models import TaggedItemBase
from wagtail.admin.panels import FieldPanel, MultiFieldPanel
from wagtail.fields import StreamField
from wagtail.models import Page, PageManager, ReferenceIndex, Revision
from wagtail.query import PageQuerySet
from wagtail.search import index

from blog.blocks import PostBodyBlock
from blog.context.post import post_page_context
from blog.forms import PostPageForm
from blog.models.base import (
    LINK_COLUMNS,
    ImportedFrom,
    OneQueryViewRestrictions,
    readable,
)
from blog.models.body import RenderedBody
from blog.models.changes import purge_paths_of_post, shown_state, tags_netted
from blog.models.plain_rows import RowsLoadedPlainly
from blog.models.preview import Previewable
from blog.text import body_text
from pagecache.cache import remember_at
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

    @staticmethod
    def posts_sharing_tags(tags):
        """Return the live posts with any of ``tags``, as their paths (for purges)."""
        return (
            PostPage.objects.live()
            .filter(tagged_items__tag__in=list(tags))
            .distinct()
            .only("url_path")
        )

    def get_context(self, request, *args, **kwargs):
        context = super().get_context(request, *args, **kwargs)
        context.update(post_page_context(self, request))
        context.update(self.body_context(request))
        return context
