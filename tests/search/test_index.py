"""What search.index relies on in Wagtail's search index, which is not public API.

If a Wagtail upgrade changes any of it, this fails here, naming what moved,
before a search returns wrong results.
"""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from wagtail.search.backends import get_search_backend
from wagtail.search.models import IndexEntry

from blog.models import PostPage
from search.index import index_entries
from search.tokens import query_tokens
from tests.factories import PostPageFactory


def field_names(model) -> set[str]:
    return {field.name for field in model._meta.get_fields()}


def test_wagtails_index_entry_has_the_columns_read():
    assert {"content_type", "object_id", "title", "body", "title_norm"} <= (
        field_names(IndexEntry)
    )


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 table")
def test_the_fts5_table_holds_title_and_body_and_points_at_its_entry():
    from wagtail.search.backends.database.sqlite.sqlite import SQLiteSearchBackend
    from wagtail.search.models import SQLiteFTSIndexEntry

    assert isinstance(get_search_backend(), SQLiteSearchBackend)
    assert {"title", "body", "index_entry"} <= field_names(SQLiteFTSIndexEntry)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL")
def test_the_postgres_backend_has_its_config_and_weights():
    from wagtail.search.backends.database.postgres.postgres import (
        PostgresSearchBackend,
    )
    from wagtail.search.backends.database.postgres.weights import get_sql_weights

    backend = get_search_backend()
    assert isinstance(backend, PostgresSearchBackend)
    assert backend.config == "simple"
    assert len(get_sql_weights().split(",")) == 4


def test_the_index_is_read_and_scores_every_match(home):
    in_title = PostPageFactory(parent=home, title="Swizzle 布局", summary="")
    in_body = PostPageFactory(parent=home, title="Bank conflicts", summary="swizzle")
    # Indexed on save, as Wagtail's signal handlers do for a live page.
    for post in (in_title, in_body):
        post.save_revision().publish()
    post_type = ContentType.objects.get_for_model(PostPage)
    entries = index_entries(query_tokens("swizzle"), post_type)
    assert entries is not None, "the backend's index was not read"
    scores = dict(entries.values_list("object_id", "score"))
    assert set(scores) == {str(in_title.pk), str(in_body.pk)}
    # Higher is better on both databases (SQLite's BM25 is negated).
    assert all(score > 0 for score in scores.values()), scores


def test_a_publish_leaves_indexing_to_a_task_worker(home, database_queue):
    # Tokenizing a long post is not the editor's wait: the publish queues the
    # index update, and the worker indexes the post with the tags publishing
    # saved after the page row.
    from tests.queue import run_worker

    post = PostPageFactory(parent=home, title="Quokka notes", live=False)
    post.tags.add("wombat")
    post.save_revision().publish()
    assert PostPage.search_ids("quokka") == []

    run_worker()

    assert PostPage.search_ids("quokka") == [post.pk]
    assert PostPage.search_ids("wombat") == [post.pk]
