"""Full-text search of posts: Chinese, English and code, the same on SQLite and PostgreSQL.

Mechanism: Wagtail's database search backend (FTS5 on SQLite, tsvector on
PostgreSQL), fed text that this module has already cut into tokens. Neither
database can segment Chinese, which has no spaces (FTS5's unicode61 would keep
“对称量化是一种…” as one token; PostgreSQL's parsers likewise), and the two
split and stem English and code differently (PostgreSQL reads `cp.async` as a
host name, FTS5 as two words). So one normaliser, `index_tokens()`, runs in
Python at index time and its twin, `query_tokens()`, on the query:

- runs of Han characters go through jieba (`cut_for_search` when indexing, so
  对称量化 is stored as 对称 量化; the precise `cut` for the query, so 量化 or
  调度器 → 调度 器 are looked up as words), without its HMM guesser, so the same
  text always gives the same words;
- English words are lower-cased and Snowball-stemmed (concurrencies and
  concurrency → concurr);
- code identifiers are kept whole and split: `__syncthreads` → syncthreads,
  `cp.async` → cp async cpasync, `cudaMemcpyAsync` → cuda memcpy async plus
  the joined neighbours, so a query for a dotted or camel-cased name matches
  the parts next to each other, not just anywhere in the post.

Every token is plain ASCII `[a-z0-9]` or Han characters, separated by spaces:
FTS5's unicode61 tokenizer and PostgreSQL's `simple` configuration (set in
`WAGTAILSEARCH_BACKENDS`, so PostgreSQL does not stem again) both split that
only on the spaces, so both databases see the same tokens and return the same
posts. The query is their AND.

Matching and scoring: on SQLite (FTS5) and PostgreSQL this module reads
Wagtail's index table itself, in one query per search, rather than through
`.search()`: Wagtail's SQLite backend runs the FTS match again for every
matching row to score it (38 s for a common word on 10,000 posts), and its
PostgreSQL backend matches `title || body`, which neither GIN index serves,
so it reads every index row. Here a post must hold every token in its title
or body (on PostgreSQL `title @@ t OR body @@ t` for each token, which the two
GIN indexes answer) and be live and outside any private section; only the
newest `MAX_RESULTS` such posts are scored, with the backend's own formula
(BM25 on SQLite, weighted `ts_rank` on PostgreSQL). "Newest" is by index
entry: one is made when a post is created, and `update_index` makes missing
ones in id order. The work per search is then bounded whatever the size of
the site. With up to `MAX_RESULTS` matches the results are exactly Wagtail's;
with more ("至少 500 篇"), they are the newest `MAX_RESULTS` matches, ranked,
where Wagtail ranked every match and kept its best `MAX_RESULTS`: a post that
matches well but is older than those may be left out. Other search backends
(Elasticsearch past ~100k posts) are asked through `.search()`, as before.

Ranking: the SQLite backend ignores field boosts, so "title hits first" is
applied here: results are re-ordered by how many query tokens the title
holds, then the summary, then the backend's score. That needs only the ids,
titles and summaries of the matches, fetched in the search query itself; the
page shown then costs one query for its posts and one for their tags. A
snippet is cut from the body's plain text, which is kept in the render cache
by the body's content, so a search does not walk ten bodies' JSON each time.

Why not an external engine: the blog runs out of the box on SQLite and is
deployed on PostgreSQL; this adds two small packages and no service:
rjieba, the Python binding of jieba-rs, which cuts as jieba does, with
jieba's dictionary, in a third of the memory and many times faster; and
snowballstemmer. Past ~100k posts, Wagtail's Elasticsearch or OpenSearch
backend with an IK/smartcn analyzer replaces it (a setting).

Changing the normaliser (or jieba's dictionary) changes the stored tokens:
run `manage.py update_index` afterwards.
"""

from __future__ import annotations

import functools
import operator
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from django.db import connection
from django.db.models import (
    BooleanField,
    Exists,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from wagtail.search.backends import get_search_backend

from pagecache.cache import kept_many, remember_at
from rendering.cache import make_key

MAX_QUERY_LENGTH = 200
MAX_QUERY_TOKENS = 16
MAX_RESULTS = 500
RESULTS_PER_PAGE = 10
SNIPPET_CONTEXT = 60

# Han ideographs (unified, extension A, compatibility): what jieba segments.
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of Han characters, or an ASCII word or identifier whose parts are
# joined by `.`, `::`, `-`, `/` or `->` (cp.async, std::vector, sm_80).
_RUN_RE = re.compile(rf"[{_HAN}]+|[A-Za-z0-9_]+(?:(?:[.:/\-]|->)+[A-Za-z0-9_]+)*")
_PART_SPLIT_RE = re.compile(r"[^A-Za-z0-9]+")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SQUASH_RE = re.compile(rf"[^a-z0-9{_HAN}]+")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]+")
_MAX_PART = 40
_MAX_JOINED = 64
# Left out of a query (not of the index) unless the query is nothing else.
_QUERY_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "in", "is", "of"}
    | {"on", "or", "the", "to", "with", "的", "了", "是", "在", "和", "与", "及"}
)


@functools.cache
def _jieba():
    """Return jieba (jieba-rs), its dictionary loaded (half a second, once a process).

    Loaded by the first search, not by every worker at startup: about 30 MB.
    """
    import rjieba  # Its module functions share the instance importing it loads.

    return rjieba


@functools.cache
def _stemmer():
    """Return the Snowball English stemmer (Porter 2)."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=20000)
def _stem(word: str) -> str:
    """Return the stem of a lower-case English word; identifiers come out as-is."""
    return _stemmer().stemWord(word)


def _pieces(run: str) -> list[str]:
    """Split an ASCII run at punctuation and underscores: `cp.async` → cp, async."""
    return [p for p in _PART_SPLIT_RE.split(run) if p and len(p) <= _MAX_PART]


def _forms(word: str) -> list[str]:
    """Return a lower-case word and, if it differs, its stem."""
    stem = _stem(word)
    return [word] if stem == word else [word, stem]


def _ascii_tokens(run: str, *, query: bool) -> list[str]:
    """Return the tokens of a word or identifier.

    The index holds every piece, its camelCase parts, neighbouring parts and
    pieces joined, and the whole identifier joined, each with its stem. A query
    asks for each piece (stemmed, not split at humps, so `ReLU` finds `relu`)
    and for neighbouring pieces joined, so `cp.async` finds `cp` next to
    `async`, not a post that merely has both words somewhere.
    """
    pieces = _pieces(run)
    lowered = [piece.lower() for piece in pieces]
    joins = [a + b for a, b in pairwise(lowered)]
    if query:
        return [_stem(piece) for piece in lowered] + joins
    tokens = []
    for piece in pieces:
        parts = [part.lower() for part in _CAMEL_RE.split(piece) if part]
        for part in parts:
            tokens.extend(_forms(part))
        if len(parts) > 1:
            tokens.extend(_forms(piece.lower()))
            for a, b in pairwise(parts):
                tokens.extend(_forms(a + b))
    for join in joins:
        tokens.extend(_forms(join))
    if len(lowered) > 2 and len(whole := "".join(lowered)) <= _MAX_JOINED:
        tokens.extend(_forms(whole))
    return tokens


def _han_tokens(run: str, *, query: bool) -> list[str]:
    jieba = _jieba()
    cut = jieba.cut if query else jieba.cut_for_search
    return [word for word in cut(run, hmm=False) if word.strip()]


def _tokens(text: str, *, query: bool) -> Iterable[str]:
    text = unicodedata.normalize("NFKC", text)
    for match in _RUN_RE.finditer(text):
        run = match.group()
        if run[0] >= "\u3400":
            yield from _han_tokens(run, query=query)
        else:
            yield from _ascii_tokens(run, query=query)


def index_tokens(text: str) -> list[str]:
    """Return the tokens stored for a text: words, stems, identifiers and parts."""
    return list(_tokens(text, query=False))


@functools.lru_cache(maxsize=64)
def index_text(text: str) -> str:
    """Return a text as the space-separated tokens the search backend stores.

    Remembered: Wagtail's backends read a post's search text several times
    for one index update (title, body, autocomplete), and a save, a revision
    and a publish each update the index; jieba would cut the same text each time.
    """
    return " ".join(index_tokens(text))


def clean_query(raw: str | None) -> str:
    """Return the query as typed, minus control characters, capped in length."""
    text = _CONTROL_RE.sub(" ", raw or "")
    return " ".join(text.split())[:MAX_QUERY_LENGTH].strip()


def query_tokens(query: str) -> list[str]:
    """Return the distinct tokens a post must all contain to match the query."""
    tokens = list(dict.fromkeys(_tokens(query, query=True)))
    meaningful = [t for t in tokens if t not in _QUERY_STOPWORDS]
    return (meaningful or tokens)[:MAX_QUERY_TOKENS]


# Highlighting.


def _highlight_re(query: str, tokens: Sequence[str]) -> re.Pattern | None:
    """Match the query's words and tokens in text; a stem matches its whole word."""
    words = {w for w in unicodedata.normalize("NFKC", query).split() if w}
    terms = sorted(words | set(tokens), key=len, reverse=True)
    alternatives = []
    for term in terms:
        if term.isascii() and term.isalnum():
            alternatives.append(rf"(?<![A-Za-z0-9]){re.escape(term)}[A-Za-z0-9]*")
        else:
            alternatives.append(re.escape(term))
    if not alternatives:
        return None
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _marked(text: str, pattern: re.Pattern | None) -> SafeString:
    """Escape text and wrap the pattern's matches in <mark>."""
    if pattern is None:
        return escape(text)
    out, last = [], 0
    for match in pattern.finditer(text):
        if match.end() == match.start():
            continue
        out.append(escape(text[last : match.start()]))
        out.append(f"<mark>{escape(match.group())}</mark>")
        last = match.end()
    out.append(escape(text[last:]))
    # Every piece of text was escaped above; only our own <mark> tags are markup.
    return mark_safe("".join(out))  # noqa: S308


def _excerpt(text: str, pattern: re.Pattern | None) -> SafeString | None:
    """Return ±SNIPPET_CONTEXT characters around the first match, highlighted."""
    match = pattern.search(text) if pattern else None
    if match is None:
        return None
    start = max(0, match.start() - SNIPPET_CONTEXT)
    end = min(len(text), match.end() + SNIPPET_CONTEXT)
    snippet = _marked(text[start:end], pattern)
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    return mark_safe(f"{prefix}{snippet}{suffix}")  # noqa: S308 (escaped above)


# The search itself.


@dataclass
class Hit:
    """A post found by a search, with its title and snippet highlighted."""

    post: object
    title: SafeString
    snippet: SafeString


# A search weighs up to MAX_RESULTS titles and as many summaries, mostly those
# of the newest posts: remember a few searches' worth.
_TEXT_CACHE_SIZE = 8 * MAX_RESULTS


@functools.lru_cache(maxsize=_TEXT_CACHE_SIZE)
def _token_set(text: str) -> frozenset[str]:
    """Return the index tokens of a title or summary, remembered across searches."""
    return frozenset(index_tokens(text))


@functools.lru_cache(maxsize=_TEXT_CACHE_SIZE)
def _squashed(text: str) -> str:
    """Return a title or summary lower-cased, with only [a-z0-9] and Han left."""
    return _SQUASH_RE.sub("", unicodedata.normalize("NFKC", text).lower())


def _rank(matches, tokens: Sequence[str]) -> list[int]:
    """Order ids: most query tokens in the title, then in the summary, then score."""

    def hits(text: str) -> int:
        # Segment only texts that may hold a token: most matches hold none.
        squashed = _squashed(text)
        candidates = [token for token in tokens if token in squashed]
        if not candidates:
            return 0
        present = _token_set(text)
        return sum(token in present for token in candidates)

    keyed = [
        ((-hits(title), -hits(summary), position), pk)
        for position, (pk, title, summary) in enumerate(matches)
    ]
    return [pk for _, pk in sorted(keyed)]


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


def _index_entries(tokens: Sequence[str], content_type):
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


def _index_matches(tokens: Sequence[str]) -> list[tuple[int, str, str]] | None:
    """Return (id, title, summary) of the newest visible matches, best first.

    One query for the matches (on a site with private pages, it excludes
    them); None if the backend's index is not one this module reads.
    """
    from django.contrib.contenttypes.models import ContentType

    from blog.models import PostPage

    entries = _index_entries(tokens, ContentType.objects.get_for_model(PostPage))
    if entries is None:
        return None
    post = (
        PostPage.objects.visible()
        .filter(pk=Cast(OuterRef("object_id"), IntegerField()))
        .order_by()
    )
    rows = (
        entries.filter(Exists(post))
        .annotate(
            post_title=Subquery(post.values("title")),
            post_summary=Subquery(post.values("summary")),
        )
        # The newest first: an index entry is made when its page is created.
        .order_by("-pk")
        .values_list("object_id", "post_title", "post_summary", "score")
    )[:MAX_RESULTS]
    # The backend's order: best score first, then the newest post.
    ordered = sorted(
        ((int(pk), title, summary, score) for pk, title, summary, score in rows),
        key=lambda row: (-row[3], -row[0]),
    )
    return [(pk, title, summary) for pk, title, summary, _ in ordered]


def _backend_matches(tokens: Sequence[str]) -> list[tuple[int, str, str]]:
    """Return (id, title, summary) of the backend's best matches, through Wagtail."""
    from blog.models import PostPage

    results = (
        PostPage.objects.visible()
        .only("title", "summary")
        .search(" ".join(tokens), operator="and")
    )
    return [(post.pk, post.title, post.summary) for post in results[:MAX_RESULTS]]


def search_post_ids(query: str) -> list[int]:
    """Return the ids of the live, public posts matching a query, best first.

    One query for the search (see ``_index_matches``). The ranked ids are kept
    until the search page is purged, as every post published, unpublished,
    moved or deleted purges it (``blog.invalidation``): a query asked again,
    or its next page, reads them back instead of matching every post again.
    """
    tokens = query_tokens(query)
    if not tokens:
        return []

    def ranked():
        matches = _index_matches(tokens)
        if matches is None:
            matches = _backend_matches(tokens)
        return _rank(matches, tokens)

    return remember_at([reverse("search")], f"search:{' '.join(tokens)}", ranked)


# Bump when body_text() changes, so that texts kept in the cache are made again.
_BODY_TEXT_KEY = "search-body-1"


def _body_texts(posts) -> dict[int, str]:
    """Return each post's body_text(), kept in the render cache by body content."""
    from blog.models import BODY_CACHE_SECONDS, PostPage
    from blog.text import body_text

    posts = list(posts)

    def keys():
        return [make_key(_BODY_TEXT_KEY, post.body_digest()) for post in posts]

    def texts(indexes):
        # Posts come without their body (with_body_digest): load the ones to do.
        pks = [posts[i].pk for i in indexes]
        bodies = PostPage.objects.filter(pk__in=pks).only("body").in_bulk()
        # A post deleted meanwhile has no text, and none is kept for its body.
        return [body_text(bodies[pk].body) if pk in bodies else None for pk in pks]

    found = kept_many(len(posts), keys, texts, BODY_CACHE_SECONDS)
    return {post.pk: text or "" for post, text in zip(posts, found, strict=True)}


def hits_for(ids: Sequence[int], query: str) -> list[Hit]:
    """Load the posts of one page of results and highlight them.

    Two queries, and a third for the bodies whose text is not in the cache.
    """
    from blog.models import PostPage, PostTag

    tokens = query_tokens(query)
    pattern = _highlight_re(query, tokens)
    posts = (
        PostPage.objects.filter(pk__in=list(ids))
        .with_body_digest()
        .prefetch_related(PostTag.prefetch())
    )
    by_id = {post.pk: post for post in posts}
    texts = _body_texts(by_id.values())
    hits = []
    for pk in ids:
        post = by_id.get(pk)
        if post is None:
            continue
        text = texts[pk]
        snippet = (
            _excerpt(text, pattern)
            or _excerpt(post.summary, pattern)
            or escape(post.summary or text[: 2 * SNIPPET_CONTEXT])
        )
        hits.append(Hit(post=post, title=_marked(post.title, pattern), snippet=snippet))
    return hits


def reindex_published_post(sender, instance, **kwargs):
    """Index a post again once publishing has saved its tags.

    The index is updated when the page row is saved, before modelcluster
    writes the tags; `page_published` comes after both.
    """
    from wagtail.search import index

    index.insert_or_update_object(instance)
