"""What a post's publish changed, and so which served paths show the change.

``PostPage.save`` keeps what the post's listings show as it was in the
database (``shown_state``) before it writes; its ``get_purge_paths`` (called
by ``pagecache.purge`` on publish, unpublish, move and delete) compares it
with what is there after, and purges by kind of change:

- **the body only** (the title, URL, summary, dates, cover, tags and place
  unchanged): the post's own paths (page, card, figures, social image), the
  feeds that carry its full text (the site's, its tags', its sections'), the
  sitemap (its date), and the pages it started or stopped linking to (their
  backlinks); the search results once a worker has indexed the new text
  (``blog.search_index``), or at once when the post leaves;
- **what listings show** (title, URL, summary, dates, cover, tags, place; a
  post added, removed or moved): besides, every listing of it (home, its
  sections, tags, archive), its neighbours' ends (previous/next, related),
  the pages that link to it (their backlinks show its title);
- **what the explorer shows** (title, URL, dates, place, added or removed):
  the explorer fragments of its folder and the folders under it, or of every
  folder when it is (or was) among 最近更新 or sits straight under home
  (``blog.explorer``). Never every page: the explorer is not in them.

When the state before is not known (an unpublish, a move, a delete) every
kind is taken as changed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.urls import reverse
from wagtail.models import Page, ReferenceIndex, Site

from blog.blocks.note import MAX_DEPTH as NOTE_MAX_DEPTH
from blog.context.post_end import section_window
from blog.models.base import SeriesOrdering
from blog.paths import (
    archive_paths,
    feed_paths,
    listing_paths,
    site_wide_paths,
    tag_paths,
)
from pagecache.cache import purge_paths
from pagecache.purge import paths_of

# The explorer fragments' paths: this, then a folder's URL within its site.
FRAGMENT_PREFIX = "/_explorer"
# The fragment of a folder's own posts, loaded when a reader opens the folder
# in the explorer: this, then the folder's URL within its site.
POSTS_PREFIX = "/_explorer-posts"
# A folder of the explorer: a section or series (blog.models.series), named
# by its content type so that this module imports no page model.
FOLDER_TYPE = {"content_type__app_label": "blog", "content_type__model": "seriespage"}

# What listings show of a post (cards, archive lines, previous/next, related).
LISTED = ("title", "slug", "url_path", "summary", "date", "updated", "cover_id", "path")
# What the explorer and 最近更新 show of it: links in folder order, dates.
EXPLORED = ("title", "slug", "url_path", "date", "updated", "path")


def fragment_path(folder, root) -> str:
    """Return the path of ``folder``'s explorer fragment (``/_explorer/cuda/``)."""
    return FRAGMENT_PREFIX + folder.url_path[len(root.url_path) - 1 :]


def posts_fragment_path(folder, root) -> str:
    """Return the path of ``folder``'s posts fragment (``/_explorer-posts/cuda/``)."""
    return POSTS_PREFIX + folder.url_path[len(root.url_path) - 1 :]


def fragment_paths_under(folder_path: str, roots) -> set[str]:
    """Return the fragment paths of the live folders whose tree path starts with
    ``folder_path`` (a folder and the folders in it), in every site ``roots``
    (their root pages) holding them."""
    paths = set()
    for root in roots:
        if not folder_path.startswith(root.path):
            continue
        if folder_path == root.path:
            paths.add(fragment_path(root, root))
        folders = Page.objects.live().filter(
            path__startswith=folder_path, **FOLDER_TYPE
        )
        paths |= {fragment_path(f, root) for f in folders.only("url_path")}
    return paths


def shown_state(post) -> dict | None:
    """Return what listings show of ``post`` as the database has it now."""
    if not post.pk:
        return None
    row = (
        type(post)
        .objects.filter(pk=post.pk)
        .values(*LISTED, "live", "live_revision_id")
        .first()
    )
    if row is not None:
        tags = post.tags.through.objects.filter(content_object_id=post.pk)
        row["tags"] = sorted(tags.values_list("tag_id", flat=True))
    return row


def changed(before: dict | None, after: dict | None, fields) -> bool:
    if before is None or after is None:
        return True
    if before["live"] != after["live"]:
        return True
    return any(before[name] != after[name] for name in fields)


def republished(before: dict | None, after: dict | None) -> bool:
    """Whether this save published a new revision of a post that was live before."""
    return (
        before is not None
        and after is not None
        and after["live"]
        and before["live_revision_id"] != after["live_revision_id"]
    )


def purge_paths_of_post(post, recent_count: int) -> set[str]:
    """Return the paths that show what this save of ``post`` changed.

    ``recent_count``: how many posts 最近更新 lists.
    """
    before = getattr(post, "shown_before", None)
    if before is not None and before["live_revision_id"] is None:
        # Never published through a revision (a page added live, then
        # published): no reader was shown its row; take everything as new.
        before = None
    after = shown_state(post)
    ancestors = list(post.get_ancestors().specific())
    tags = list(post.tags.all())
    paths = paths_of([post]) | post.figure_paths() | post.preview_paths()
    paths |= embedding_paths(post)
    paths.add(reverse("social_image", args=[post.pk]))
    paths |= site_wide_paths()  # the site feed, search, the sitemap
    if republished(before, after):
        # Its search results are purged once a worker has indexed its new
        # text (blog.search_index): purged now, they would be made again from
        # the old index and kept.
        paths.discard(reverse("search"))
    paths |= {p for p in tag_paths(tags) if p.endswith("/feed/")}
    for ancestor in ancestors[1:]:
        paths |= feed_paths(ancestor)
    linked_now = set(post.linked_page_ids().values_list("page_id", flat=True))
    linked_before = set(getattr(post, "linked_before", linked_now))
    listed = changed(before, after, LISTED) or (
        before is not None and before["tags"] != after["tags"]
    )
    if not listed:
        # Pages it started or stopped linking to: their backlinks and graphs.
        moved = Page.objects.filter(pk__in=linked_now ^ linked_before)
        paths |= paths_of(moved.only("url_path"))
    else:
        paths |= listed_paths(post, ancestors, tags, linked_now | linked_before)
    if changed(before, after, EXPLORED):
        paths |= explorer_paths(post, before, recent_count)
    return paths


def embedding_ids(page_ids) -> set[int]:
    """Return the ids of the pages whose body embeds any of ``page_ids``
    (``blog.blocks.note``), straight or through other embeds, from Wagtail's
    reference index."""
    page_type = ContentType.objects.get_for_model(Page)
    found: set[int] = set()
    wanted = {str(pk) for pk in page_ids}
    # As deep as an embed is followed when it is rendered.
    for _ in range(NOTE_MAX_DEPTH):
        references = ReferenceIndex.objects.filter(
            to_content_type=page_type,
            to_object_id__in=wanted,
            base_content_type=page_type,
            model_path__endswith=".note.page",
        )
        new = {int(pk) for pk in references.values_list("object_id", flat=True)}
        new -= found
        if not new:
            break
        found |= new
        wanted = {str(pk) for pk in new}
    return found


def embedding_paths(post) -> set[str]:
    """Return the paths of the pages that show ``post`` embedded in them."""
    ids = embedding_ids([post.pk])
    if not ids:
        return set()
    return paths_of(Page.objects.filter(pk__in=ids).only("url_path"))


def listed_paths(post, ancestors, tags, linked) -> set[str]:
    """Return the pages that list or name ``post``: listings, neighbours, links."""
    paths = listing_paths(ancestors) | tag_paths(tags) | archive_paths()
    parent = ancestors[-1]
    if getattr(parent, "ordering", None) == SeriesOrdering.EXPLORER:
        paths |= paths_of(parent.get_children().live().only("url_path"))
    # The posts whose end shows this one: its section's nearest (previous,
    # next, or related by section) and those sharing a tag (related).
    before, after = section_window(post)
    paths |= paths_of([*before, *after])
    paths |= paths_of(type(post).posts_sharing_tags(tags))
    # The pages it links to and those that link to it: their backlinks and
    # graphs show its title.
    named = Page.objects.filter(Q(pk__in=linked) | Q(pk__in=post.referrer_ids()))
    return paths | paths_of(named.only("url_path"))


def explorer_paths(post, before: dict | None, recent_count: int) -> set[str]:
    """Return the explorer fragments that list ``post`` (``blog.explorer``).

    Every folder's when the post sits straight under its site's home, or is
    (or was) among 最近更新: its ``updated`` is no older than the oldest of
    the others there. Otherwise its folder's and those of the folders in it
    (each lists the folders above it open, with their posts). Always its
    folder's posts fragment, which lists it.
    """
    roots = [
        root
        for root in Page.objects.filter(
            pk__in=[site.root_page_id for site in Site.objects.all()]
        ).only("path", "url_path")
        if post.path.startswith(root.path)
    ]
    if not roots:
        return set()
    parent_path = post.path[: -post.steplen]
    folder = (
        Page.objects.filter(path=parent_path, **FOLDER_TYPE).only("url_path").first()
    )
    posts = {posts_fragment_path(folder, root) for root in roots} if folder else set()
    everything = any(parent_path == root.path for root in roots)
    if not everything:
        recent = list(
            type(post)
            .objects.filter(path__startswith=roots[0].path)
            .recently_updated()
            .exclude(pk=post.pk)
            .values_list("updated", flat=True)[:recent_count]
        )
        dates = [post.updated, (before or {}).get("updated")]
        everything = len(recent) < recent_count or any(
            date and date >= recent[-1] for date in dates
        )
    if everything:
        return posts | {
            p for root in roots for p in fragment_paths_under(root.path, [root])
        }
    return posts | fragment_paths_under(parent_path, roots)


# The tag rows deleted (-1) and added (+1) while a post is saved, by post and
# tag, each with its tag (``tags_netted``).
_tag_rows: ContextVar[dict[tuple[int, int], list] | None] = ContextVar(
    "tag_rows", default=None
)


@contextmanager
def tags_netted(post) -> Iterator[None]:
    """Purge what shows the tags ``post`` gained or lost in the block, at its end.

    A publish from the admin's form saves a post's tags by deleting their rows
    and adding them again (modelcluster): a tag deleted and added again is
    unchanged, and nothing that shows it is purged (``note_tag_row``).
    """
    if _tag_rows.get() is not None:
        yield
        return
    rows: dict[tuple[int, int], list] = {}
    token = _tag_rows.set(rows)
    try:
        yield
    finally:
        _tag_rows.reset(token)
    changed = defaultdict(list)
    for (post_id, _), (tag, count) in rows.items():
        if count:
            changed[post_id].append(tag)
    for post_id, tags in changed.items():
        purge_paths(tag_change_paths(type(post), post_id, tags))


def note_tag_row(post_id: int, tag, change: int) -> bool:
    """Count a tag row of a post deleted (-1) or added (+1) inside ``tags_netted``.

    Return whether it was counted: outside such a block, it is the caller's
    to purge (``tag_change_paths``).
    """
    rows = _tag_rows.get()
    if rows is None:
        return False
    rows.setdefault((post_id, tag.pk), [tag, 0])[1] += change
    return True


def tag_change_paths(post_model, post_id: int, tags) -> set[str]:
    """Return what shows that post ``post_id`` gained or lost ``tags``.

    The tags' pages and feeds list it; its own page and feed entry show its
    tags; the posts sharing the tags list their related posts by them.
    """
    post = Page.objects.filter(pk=post_id).only("url_path")
    sharing = post_model.posts_sharing_tags(tags)
    return tag_paths(tags) | paths_of(post) | paths_of(sharing)
