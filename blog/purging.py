"""Purge what a change to a post's tags shows: its tag pages, its own page.

Pages say for themselves what shows them (``get_purge_paths``); tags are rows
of their own, saved with a post or straight.
"""

from django.db.models.signals import post_delete, post_save
from taggit.models import Tag

from blog.models import PostPage, PostTag
from blog.models.changes import note_tag_row, tag_change_paths
from pagecache.cache import purge_all, purge_deferred, purge_paths


def _on_post_tag_change(sender, instance, signal, created=True, **kwargs):
    # A post gained or lost a tag (saved when the post is published, or
    # straight): the tag's pages list it, and the post shows its tags on its
    # page and in its feed entry, both kept under its path's token.
    # The post is looked up, not followed: it may be going in the same delete.
    # A publish saves the tags the post keeps again, unchanged: no purge (a
    # new date, which they carry, is the post's own change, blog.models.changes);
    # a publish from the admin deletes and adds them again: counted while the
    # post saves, and only a tag gained or lost on balance is purged.
    if purge_deferred() or not created:
        return
    change = -1 if signal is post_delete else 1
    if not note_tag_row(instance.content_object_id, instance.tag, change):
        purge_paths(
            tag_change_paths(PostPage, instance.content_object_id, [instance.tag])
        )


def _on_tag_change(sender, instance, created=False, **kwargs):
    # A new tag is on no page yet; a renamed or deleted one is on its posts' cards.
    if not created:
        purge_all()


def connect() -> None:
    """Connect the tag purges to Django's signals (from AppConfig.ready)."""
    for signal in (post_save, post_delete):
        signal.connect(_on_post_tag_change, sender=PostTag, dispatch_uid="pagecache")
        signal.connect(_on_tag_change, sender=Tag, dispatch_uid="pagecache")
