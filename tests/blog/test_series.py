"""SeriesPage: sections and series, their order and counts."""

import datetime

from tests.factories import PostPageFactory, SeriesPageFactory


def test_series_lists_posts_in_explorer_order(home):
    series = SeriesPageFactory(parent=home, slug="csapp")
    first = PostPageFactory(parent=series, slug="a", date=datetime.date(2024, 1, 1))
    second = PostPageFactory(parent=series, slug="b", date=datetime.date(2023, 1, 1))
    third = PostPageFactory(parent=series, slug="c", date=datetime.date(2025, 1, 1))
    assert list(series.posts()) == [first, second, third]

    # An editor drags "c" to the top in the explorer.
    third.move(first, pos="left")
    assert [p.slug for p in series.posts()] == ["c", "a", "b"]


def test_section_lists_every_post_under_it_newest_first(home):
    section = SeriesPageFactory(parent=home, slug="cuda", ordering="newest")
    nested = SeriesPageFactory(parent=section, slug="cute")
    old = PostPageFactory(parent=section, slug="old", date=datetime.date(2024, 1, 1))
    new = PostPageFactory(parent=nested, slug="new", date=datetime.date(2026, 1, 1))
    assert list(section.posts()) == [new, old]
    assert section.post_count() == 2
