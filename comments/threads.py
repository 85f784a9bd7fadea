"""The comments of a post: which a reader sees, in threads, and what they say."""

from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.utils.safestring import mark_safe
from django_comments_xtd.models import XtdComment

from blog.models import PostPage
from pagecache.cache import purge_paths
from pagecache.purge import paths_of
from rendering.comments import render_comment

PENDING = Q(is_public=False, is_removed=False)
PUBLISHED = Q(is_public=True, is_removed=False)
SPAM = Q(is_removed=True)


def comments_on(post):
    """Return every comment on ``post``, in thread order."""
    return XtdComment.norel_objects.filter(
        content_type=ContentType.objects.get_for_model(PostPage),
        object_pk=str(post.pk),
    ).order_by("thread_id", "order")


@dataclass
class Thread:
    """A comment a reader sees, its text rendered, and the replies to it."""

    comment: XtdComment
    html: str
    replies: list["Thread"] = field(default_factory=list)


def published_threads(post) -> tuple[list[Thread], int]:
    """Return the published comments on ``post`` as threads, and how many there are.

    One query. A reply whose parent is not shown (held, spam) is not shown.
    """
    shown: dict[int, Thread] = {}
    threads: list[Thread] = []
    rows = (
        comments_on(post)
        .filter(PUBLISHED)
        .only("pk", "parent_id", "level", "user_name", "comment", "submit_date")
    )
    for comment in rows:
        # Our renderer escapes the reader's text (raw HTML off, rendering/comments.py).
        thread = Thread(comment, mark_safe(render_comment(comment.comment)))  # noqa: S308
        if comment.parent_id == comment.pk:
            threads.append(thread)
        elif comment.parent_id in shown:
            shown[comment.parent_id].replies.append(thread)
        else:
            continue
        shown[comment.pk] = thread
    return threads, len(shown)


def purge_posts_of(comments) -> None:
    """Drop the cached pages of the posts these comments are on."""
    ids = {int(comment.object_pk) for comment in comments}
    purge_paths(paths_of(PostPage.objects.filter(pk__in=ids).only("url_path")))


def with_replies(comments) -> list[int]:
    """Return the ids of these comments and of every reply below them."""
    ids = {comment.pk for comment in comments}
    frontier = set(ids)
    while frontier:
        below = set(
            XtdComment.norel_objects.filter(parent_id__in=frontier)
            .exclude(pk__in=ids)
            .values_list("pk", flat=True)
        )
        ids |= below
        frontier = below
    return sorted(ids)
