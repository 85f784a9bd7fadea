"""Search a queryset of pages: match, rank, and highlight titles and snippets.

The caller hands the pages a reader may see (a queryset of a model with
``title`` and ``summary``) and this module returns their ids, best first.
On SQLite and PostgreSQL the match reads Wagtail's index tables in one query
(``search.index``); only the newest ``MAX_RESULTS`` matching pages are
scored, so the work per search is bounded whatever the size of the site.
With up to ``MAX_RESULTS`` matches the results are exactly Wagtail's; with
more ("至少 500 篇"), the newest ``MAX_RESULTS``, ranked. Other search backends
(Elasticsearch past ~100k posts) are asked through ``.search()``.

Ranking: the SQLite backend ignores field boosts, so "title hits first" is
applied here: results are re-ordered by how many query tokens the title holds,
then the summary, then the backend's score.
"""

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, IntegerField, OuterRef, Subquery
from django.db.models.functions import Cast
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from wagtail.search import index

from search.index import index_entries
from search.tokens import HAN, index_tokens, query_tokens

MAX_RESULTS = 500
RESULTS_PER_PAGE = 10
SNIPPET_CONTEXT = 60
_SQUASH_RE = re.compile(rf"[^a-z0-9{HAN}]+")


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


def _index_matches(tokens: Sequence[str], pages) -> list[tuple[int, str, str]] | None:
    """Return (id, title, summary) of the newest of ``pages`` that match, best first.

    One query for the matches; None if the backend's index is not one
    ``search.index`` reads.
    """
    entries = index_entries(tokens, ContentType.objects.get_for_model(pages.model))
    if entries is None:
        return None
    page = pages.filter(pk=Cast(OuterRef("object_id"), IntegerField())).order_by()
    rows = (
        entries.filter(Exists(page))
        .annotate(
            page_title=Subquery(page.values("title")),
            page_summary=Subquery(page.values("summary")),
        )
        # The newest first: an index entry is made when its page is created.
        .order_by("-pk")
        .values_list("object_id", "page_title", "page_summary", "score")
    )[:MAX_RESULTS]
    # The backend's order: best score first, then the newest page.
    ordered = sorted(
        ((int(pk), title, summary, score) for pk, title, summary, score in rows),
        key=lambda row: (-row[3], -row[0]),
    )
    return [(pk, title, summary) for pk, title, summary, _ in ordered]


def _backend_matches(tokens: Sequence[str], pages) -> list[tuple[int, str, str]]:
    """Return (id, title, summary) of the backend's best matches, through Wagtail."""
    results = pages.only("title", "summary").search(" ".join(tokens), operator="and")
    return [(page.pk, page.title, page.summary) for page in results[:MAX_RESULTS]]


def search_ids(
    query: str,
    pages,
    *,
    keep: Callable[[str, Callable[[], list[int]]], list[int]] | None = None,
) -> list[int]:
    """Return the ids of ``pages`` matching a query, best first.

    ``pages`` are those a reader may see. ``keep(name, compute)``, if given,
    returns ``compute()`` kept under ``name`` (until a change to the pages,
    say): a query asked again, or its next page, reads its ranked ids back
    instead of matching again.
    """
    tokens = query_tokens(query)
    if not tokens:
        return []

    def ranked():
        matches = _index_matches(tokens, pages)
        if matches is None:
            matches = _backend_matches(tokens, pages)
        return _rank(matches, tokens)

    if keep is None:
        return ranked()
    return keep(f"search:{' '.join(tokens)}", ranked)


def hits(
    pages: Sequence, query: str, texts: Callable[[Sequence], dict[int, str]]
) -> list[Hit]:
    """Return ``pages``, one page of results, with title and snippet highlighted.

    ``texts(pages)`` returns each page's plain text by id, for the snippet.
    """
    tokens = query_tokens(query)
    pattern = _highlight_re(query, tokens)
    found = texts(pages)
    results = []
    for page in pages:
        text = found.get(page.pk, "")
        snippet = (
            _excerpt(text, pattern)
            or _excerpt(page.summary, pattern)
            or escape(page.summary or text[: 2 * SNIPPET_CONTEXT])
        )
        results.append(
            Hit(post=page, title=_marked(page.title, pattern), snippet=snippet)
        )
    return results


def reindex_published_post(sender, instance, **kwargs):
    """Index a page again once publishing has saved its tags.

    The index is updated when the page row is saved, before modelcluster
    writes the tags; `page_published` comes after both.
    """
    index.insert_or_update_object(instance)
