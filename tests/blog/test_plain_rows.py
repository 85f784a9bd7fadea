"""What blog.models.plain_rows relies on: Django builds a loaded row as it does.

Post rows are built without ``Model.__init__``. If Django or Wagtail changes
how a loaded instance looks (its ``_state``, its descriptors), these fail.
"""

from django.db import models
from django.db.models.signals import post_init
from wagtail.blocks import StreamValue

from blog.models import PostPage
from tests.factories import PostPageFactory


def test_a_post_read_from_the_database_is_what_django_would_build(home):
    """Rows are built without ``__init__`` (RowsLoadedPlainly): same values, same state."""
    post = PostPageFactory(
        parent=home, title="访存合并", summary="coalescing", tags=["cuda"]
    )
    post.save_revision().publish()

    loaded = PostPage.objects.get(pk=post.pk)
    built = models.Model.from_db.__func__(
        PostPage,
        "default",
        [f.attname for f in PostPage._meta.concrete_fields],
        [getattr(loaded, f.attname) for f in PostPage._meta.concrete_fields],
    )
    assert not loaded._state.adding and loaded._state.db == "default"
    for field in PostPage._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(built, field.attname)
    assert isinstance(loaded.body, StreamValue)
    assert loaded.get_deferred_fields() == set()
    assert [tag.name for tag in loaded.tags.all()] == ["cuda"]

    card = PostPage.objects.only("title", "date").get(pk=post.pk)
    assert (
        "summary" in card.get_deferred_fields() and "body" in card.get_deferred_fields()
    )
    assert card.title == "访存合并"
    assert card.summary == "coalescing"  # a deferred field, loaded when read

    loaded.title = "访存合并（修订）"
    loaded.save_revision().publish()
    assert PostPage.objects.get(pk=post.pk).title == "访存合并（修订）"


def test_a_model_with_init_signals_is_built_by_django(home):
    post = PostPageFactory(parent=home, title="Warp 调度")
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.pk)

    post_init.connect(receiver, sender=PostPage)
    try:
        loaded = PostPage.objects.get(pk=post.pk)
    finally:
        post_init.disconnect(receiver, sender=PostPage)
    assert seen == [post.pk], "a post_init receiver must see every loaded row"
    assert loaded.title == "Warp 调度"


def test_the_descriptors_it_skips_only_store_the_value():
    from django.db.models.fields.related_descriptors import (
        ForeignKeyDeferredAttribute,
    )
    from django.db.models.query_utils import DeferredAttribute

    from blog.models.plain_rows import _plainly_set

    plain = _plainly_set(PostPage)
    assert {"title", "summary", "date", "url_path", "cover_id"} <= plain
    assert "body" not in plain  # StreamField converts what it is given
    assert type(PostPage.title) is DeferredAttribute
    assert type(PostPage.cover_id) is ForeignKeyDeferredAttribute
