"""The blog's pages: home, sections and series, posts, tags and the archive."""

from blog.models.archive import ArchivePage
from blog.models.base import (
    LINK_COLUMNS,
    CountedPaginator,
    SeriesOrdering,
    may_see,
    readable,
    site_has_view_restrictions,
)
from blog.models.body import BODY_CACHE_SECONDS
from blog.models.home import HomePage
from blog.models.post import (
    CARD_COLUMNS,
    NEWEST_FIRST,
    TAGGED_ORDER,
    PostPage,
    PostPageQuerySet,
    PostTag,
    live_post_pages,
)
from blog.models.series import SeriesPage, series_under
from blog.models.tags import TagIndexPage
from blog.models.writing import BadFormula, BodyCheck, BodyLink

__all__ = [
    "BODY_CACHE_SECONDS",
    "CARD_COLUMNS",
    "LINK_COLUMNS",
    "NEWEST_FIRST",
    "TAGGED_ORDER",
    "ArchivePage",
    "BadFormula",
    "BodyCheck",
    "BodyLink",
    "CountedPaginator",
    "HomePage",
    "PostPage",
    "PostPageQuerySet",
    "PostTag",
    "SeriesOrdering",
    "SeriesPage",
    "TagIndexPage",
    "live_post_pages",
    "may_see",
    "readable",
    "series_under",
    "site_has_view_restrictions",
]
