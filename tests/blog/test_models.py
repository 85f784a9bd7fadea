"""Page types, their parent/child rules and model behaviour."""

import datetime
import importlib

import pytest
from django.core.exceptions import ValidationError

from blog.models import (
    ArchivePage,
    HomePage,
    PostPage,
    PostTag,
    SeriesPage,
    TagIndexPage,
)
from tests.factories import PostPageFactory


def test_migrated_database_has_a_site_root_with_tags_and_archive(home):
    assert home.url == "/"
    assert [page.specific_class for page in home.get_children()] == [
        TagIndexPage,
        ArchivePage,
    ]
    assert home.get_children().get(slug="tags").url == "/tags/"
    assert home.get_children().get(slug="archive").url == "/archive/"


@pytest.mark.parametrize(
    ("child", "parent", "allowed"),
    [
        (SeriesPage, HomePage, True),
        (PostPage, HomePage, True),
        (PostPage, SeriesPage, True),
        (SeriesPage, SeriesPage, True),
        (PostPage, PostPage, False),
        (SeriesPage, PostPage, False),
        (TagIndexPage, SeriesPage, False),
        (ArchivePage, SeriesPage, False),
        (HomePage, HomePage, False),
    ],
)
def test_parent_child_rules(child, parent, allowed):
    assert (child in parent.allowed_subpage_models()) is allowed
    assert (parent in child.allowed_parent_page_models()) is allowed


def test_singletons_cannot_be_created_twice(home):
    assert not TagIndexPage.can_create_at(home)
    assert not ArchivePage.can_create_at(home)
    assert not HomePage.can_create_at(home)


def test_post_tags_through_posttag(home):
    post = PostPageFactory(parent=home, tags=["cuda", "量化"])
    assert {item.tag.name for item in post.tagged_items.all()} == {"cuda", "量化"}
    assert [tag.name for tag in post.tag_list] == ["cuda", "量化"]


def test_migration_gives_each_tag_row_its_posts_date(home):
    from django.apps import apps

    migration = importlib.import_module("blog.migrations.0007_posttag_date")
    first = PostPageFactory(parent=home, date=datetime.date(2023, 9, 18), tags=["a"])
    second = PostPageFactory(
        parent=home, date=datetime.date(2026, 9, 1), tags=["a", "b"]
    )
    PostTag.objects.update(date=datetime.date(1970, 1, 1))  # as the column is added

    migration.copy_post_dates(apps, None)

    dates = PostTag.objects.values_list("content_object_id", "date")
    assert sorted(dates) == [
        (first.pk, datetime.date(2023, 9, 18)),
        (second.pk, datetime.date(2026, 9, 1)),
        (second.pk, datetime.date(2026, 9, 1)),
    ]


def test_updated_cannot_precede_date(home):
    post = PostPageFactory.build(
        title="t",
        slug="t",
        date=datetime.date(2026, 9, 2),
        updated=datetime.date(2026, 9, 1),
    )
    with pytest.raises(ValidationError) as error:
        post.full_clean()
    assert "updated" in error.value.message_dict


def test_headings_give_unique_anchors_for_the_toc(home):
    post = PostPageFactory(
        parent=home,
        body__0__heading__text="小结",
        body__1__heading__text="小结",
        body__2__heading__text="Shared Memory 与 Bank",
    )
    assert [anchor for anchor, _, _ in post.headings()] == [
        "小结",
        "小结-2",
        "shared-memory-与-bank",
    ]
