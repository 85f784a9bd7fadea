"""Match and score in Wagtail's own search index tables, in one query per search.

Wagtail's SQLite backend runs the FTS match again for every matching row to
score it, and its PostgreSQL backend matches `title || body`, which neither
GIN index serves, so it reads every index row. Here a row must hold every
token in its title or body (on PostgreSQL `title @@ t OR body @@ t` for each
token, which the two GIN indexes answer), scored with the backend's own
formula (BM25 on SQLite, weighted `ts_rank` on PostgreSQL). These read
Wagtail's index models and their columns, which are not a public API:
`tests/search/test_index.py` pins what this relies on, so an upgrade that
changes it fails there. Other backends return None and are asked through
`.search()`.
"""

import functools
import operator
from collections.abc import Sequence

from django.db import connection
from django.db.models import BooleanField, F, FloatField, Q
from django.db.models.expressions import RawSQL
from wagtail.search.backends import get_search_backend


def _sqlite_entries(tokens: Sequence[str], content_type):
    """Return the FTS5 rows of a content type holding every token, scored.

    Matched in the title and body columns. `score` is Wagtail's: it adds a
    title and a body term that both read the row's BM25, the first weighted by
    the title's length norm; negated, so that higher is better on both databases.
    """
    from wagtail.search.models import SQLiteFTSIndexEntry

    table = SQLiteFTSIndexEntry._meta.db_table
    # Tokens are [a-z0-9] or Han (see above): quoting them is all FTS5 needs.
    terms = " AND ".join(f'"{token}"' for token in tokens)
    # The SQL names only the table; the query is a parameter. Django has no
    # MATCH lookup, and BM25 can only be read in the query that matches.
    match = RawSQL(  # noqa: S611
        f"{table} MATCH %s", [f"{{title body}} : ({terms})"], BooleanField()
    )
    bm25 = RawSQL(f"-bm25({table})", [], FloatField())  # noqa: S611
    return (
        SQLiteFTSIndexEntry.objects.filter(match)
        .filter(index_entry__content_type=content_type)
        .annotate(
            object_id=F("index_entry__object_id"),
            score=bm25 * (F("index_entry__title_norm") + 1),
        )
    )


def _postgres_entries(tokens: Sequence[str], content_type, config: str):
    """Return the index rows of a content type holding every token, scored.

    Each token in the title or the body, so that the GIN index on each serves
    the match; `score` is Wagtail's: the weighted ts_rank of the title, times
    the title's length norm, plus that of the body.
    """
    from django.contrib.postgres.search import SearchQuery, SearchRank
    from wagtail.search.backends.database.postgres.weights import get_sql_weights
    from wagtail.search.models import IndexEntry

    each = [SearchQuery(token, config=config) for token in tokens]
    every = functools.reduce(operator.and_, each)
    weights = get_sql_weights()
    return (
        IndexEntry.objects.filter(*[Q(title=token) | Q(body=token) for token in each])
        .filter(content_type=content_type)
        .annotate(
            score=SearchRank(F("title"), every, weights=weights) * F("title_norm")
            + SearchRank(F("body"), every, weights=weights)
        )
    )


def index_entries(tokens: Sequence[str], content_type):
    """Return the matching index rows if this module reads the backend's index.

    None for a backend it does not know, which is then asked with `.search()`.
    """
    backend = get_search_backend()
    if connection.vendor == "sqlite":
        from wagtail.search.backends.database.sqlite.sqlite import SQLiteSearchBackend

        if isinstance(backend, SQLiteSearchBackend):
            return _sqlite_entries(tokens, content_type)
    elif connection.vendor == "postgresql":
        from wagtail.search.backends.database.postgres.postgres import (
            PostgresSearchBackend,
        )

        if isinstance(backend, PostgresSearchBackend):
            return _postgres_entries(tokens, content_type, backend.config)
    return None
