"""Cut text into the tokens search stores and asks for: Chinese, English, code.

Neither SQLite's FTS5 nor PostgreSQL can segment Chinese, which has no spaces,
and the two split and stem English and code differently (PostgreSQL reads
`cp.async` as a host name, FTS5 as two words). So one normaliser,
`index_tokens()`, runs in Python at index time and its twin, `query_tokens()`,
on the query:

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
only on the spaces, so both databases see the same tokens.

Changing the normaliser (or jieba's dictionary) changes the stored tokens:
run `manage.py update_index` afterwards.
"""

import functools
import re
import unicodedata
from collections.abc import Iterable
from itertools import pairwise

MAX_QUERY_LENGTH = 200
MAX_QUERY_TOKENS = 16

# Han ideographs (unified, extension A, compatibility): what jieba segments.
HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of Han characters, or an ASCII word or identifier whose parts are
# joined by `.`, `::`, `-`, `/` or `->` (cp.async, std::vector, sm_80).
_RUN_RE = re.compile(rf"[{HAN}]+|[A-Za-z0-9_]+(?:(?:[.:/\-]|->)+[A-Za-z0-9_]+)*")
_PART_SPLIT_RE = re.compile(r"[^A-Za-z0-9]+")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
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
