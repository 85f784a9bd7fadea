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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, IntegerField, OuterRef, Subquery
from django.db.models.functions import Cast
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from rendering.cache import batch
from rendering.inline import inline_pieces
from rendering.math import prefetch_math, render_math_safe
from search.index import index_entries
from search.tokens import HAN, index_tokens, query_tokens

MAX_RESULTS = 500
RESULTS_PER_PAGE = 10
SNIPPET_CONTEXT = 60
# MathML alone: browsers typeset it without KaTeX's stylesheet, which the
# search dialog on every page does not load.
SNIPPET_MATH_OUTPUT = "mathml"
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


# Snippets: cut from one passage (a paragraph, a caption, a code block), with
# its inline math typeset as MathML, so no TeX shows and no formula is cut.

# A passage: ("text", literal) and ("math", tex) pieces, as `rendering.inline`
# finds them.
Passage = Sequence[tuple[str, str]]
_TEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")


def _is_word_char(char: str) -> bool:
    """Whether a character belongs to a word a cut must not split (not Han, not CJK)."""
    return (char.isalnum() or char == "_") and char < "\u2e80"


def _is_boundary(text: str, i: int) -> bool:
    """Whether ``text`` may be cut before position ``i``: never inside a word."""
    if i <= 0 or i >= len(text):
        return True
    return not (_is_word_char(text[i - 1]) and _is_word_char(text[i]))


def _cut_start(text: str, lowest: int, match_start: int) -> int:
    """Return the first boundary in ``text[lowest:match_start]``, else match_start."""
    for i in range(max(lowest, 0), match_start):
        if _is_boundary(text, i):
            return i
    return match_start


def _cut_end(text: str, match_end: int, highest: int) -> int:
    """Return the last boundary in ``text[match_end:highest]``, else match_end."""
    for i in range(min(highest, len(text)), match_end, -1):
        if _is_boundary(text, i):
            return i
    return match_end


def _units(passage: Passage) -> list[tuple[str, str]]:
    """Return a passage's pieces, neighbouring text joined, whitespace collapsed."""
    units: list[tuple[str, str]] = []
    for kind, value in passage:
        if kind == "text" and units and units[-1][0] == "text":
            units[-1] = ("text", units[-1][1] + value)
        elif kind == "math" and not value.strip():
            continue
        else:
            units.append((kind, value))
    cleaned = []
    for kind, value in units:
        if kind == "text":
            value = re.sub(r"\s+", " ", value)
            if not value:
                continue
        cleaned.append((kind, value))
    if cleaned and cleaned[0][0] == "text":
        cleaned[0] = ("text", cleaned[0][1].lstrip())
    if cleaned and cleaned[-1][0] == "text":
        cleaned[-1] = ("text", cleaned[-1][1].rstrip())
    return [(kind, value) for kind, value in cleaned if value]


def _math_width(tex: str) -> int:
    """Return about how many characters a typeset formula takes in a line."""
    return max(1, len(_TEX_COMMAND_RE.sub("x", tex).replace(" ", "")) // 2)


def _math_words(tex: str) -> str:
    """Return the words of a formula a query may match: TeX commands left out."""
    return _TEX_COMMAND_RE.sub(" ", tex)


def _window(
    units: list[tuple[str, str]], at: int, start: int, end: int, context: int
) -> tuple[list[tuple[str, str]], bool, bool]:
    """Return the units around ``units[at][start:end]``, ``context`` each side.

    Text is cut at a word boundary (any character in Chinese); a formula is
    taken whole or not at all. Also return whether anything was left out
    before and after.
    """
    kind, value = units[at]
    if kind == "math":
        left, right, middle = at, at + 1, [units[at]]
        budget_left = budget_right = context
        head_cut = tail_cut = False
    else:
        begin = _cut_start(value, start - context, start)
        finish = _cut_end(value, end, end + context)
        middle = [("text", value[begin:finish])]
        budget_left, budget_right = context - (start - begin), context - (finish - end)
        head_cut, tail_cut = begin > 0, finish < len(value)
        left, right = at, at + 1
    before: list[tuple[str, str]] = []
    if not head_cut:
        while left > 0 and budget_left > 0:
            kind, value = units[left - 1]
            if kind == "math":
                if _math_width(value) > budget_left:
                    break
                budget_left -= _math_width(value)
                before.insert(0, (kind, value))
            else:
                begin = _cut_start(value, len(value) - budget_left, len(value))
                before.insert(0, (kind, value[begin:]))
                budget_left -= len(value) - begin
                if begin > 0:
                    head_cut = True
                    break
            left -= 1
        head_cut = head_cut or left > 0
    after: list[tuple[str, str]] = []
    if not tail_cut:
        while right < len(units) and budget_right > 0:
            kind, value = units[right]
            if kind == "math":
                if _math_width(value) > budget_right:
                    break
                budget_right -= _math_width(value)
                after.append((kind, value))
            else:
                finish = _cut_end(value, 0, budget_right)
                after.append((kind, value[:finish]))
                budget_right -= finish
                if finish < len(value):
                    tail_cut = True
                    break
            right += 1
        tail_cut = tail_cut or right < len(units)
    return before + middle + after, head_cut, tail_cut


def _snippet_html(
    units: list[tuple[str, str]], pattern: re.Pattern | None, head: bool, tail: bool
) -> SafeString:
    """Return units as HTML: text escaped and highlighted, formulas as MathML."""
    formulas = [value for kind, value in units if kind == "math"]
    out = []
    with batch():
        prefetch_math(((tex, False) for tex in formulas), SNIPPET_MATH_OUTPUT)
        for kind, value in units:
            if kind == "text":
                out.append(_marked(value, pattern))
                continue
            # KaTeX escapes the TeX it is given; a formula it rejects is shown
            # as the site shows it everywhere, escaped in a .math-error span.
            formula = render_math_safe(value, output=SNIPPET_MATH_OUTPUT)
            if pattern is not None and pattern.search(_math_words(value)):
                formula = f"<mark>{formula}</mark>"
            out.append(formula)
    html = "".join(out).strip()
    prefix = "…" if head else ""
    suffix = "…" if tail else ""
    return mark_safe(f"{prefix}{html}{suffix}")  # noqa: S308 (escaped above)


class _LazyUnits:
    """Each passage's ``_units``, made when first reached and kept for a second pass.

    A long post has hundreds of passages; the first match is usually early.
    """

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = passages
        self.made: list[list[tuple[str, str]]] = []

    def __iter__(self) -> Iterator[list[tuple[str, str]]]:
        yield from self.made
        for passage in self.passages[len(self.made) :]:
            self.made.append(_units(passage))
            yield self.made[-1]


def _excerpt(
    passages: Sequence[Passage],
    pattern: re.Pattern | None,
    context: int = SNIPPET_CONTEXT,
) -> SafeString | None:
    """Return ``context`` characters or so around the first match, highlighted.

    The first passage whose text matches, else the first whose formula does;
    None if none does. Cut at word boundaries (English), character boundaries
    (Chinese) or between formulas, with an ellipsis where text was left out.
    """
    if pattern is None:
        return None
    split = _LazyUnits(passages)
    for kinds in (("text",), ("math",)):
        for units in split:
            for at, (kind, value) in enumerate(units):
                if kind not in kinds:
                    continue
                text = value if kind == "text" else _math_words(value)
                match = pattern.search(text)
                if match is None or match.end() == match.start():
                    continue
                shown, head, tail = _window(
                    units, at, match.start(), match.end(), context
                )
                return _snippet_html(shown, pattern, head, tail)
    return None


def _lead(passages: Sequence[Passage], length: int = 2 * SNIPPET_CONTEXT) -> SafeString:
    """Return the opening of the first non-empty passage, cut as ``_excerpt`` cuts."""
    for passage in passages:
        units = _units(passage)
        if not units:
            continue
        shown, _head, tail = _window(units, 0, 0, 0, length)
        return _snippet_html(shown, None, False, tail)
    return mark_safe("")  # noqa: S308 (empty)


# The search itself.


@dataclass
class Hit:
    """A post found by a search, with its title and snippet highlighted."""

    post: object
    title: SafeString
    snippet: SafeString
    # Where the post sits (its section's title), for the caller to fill in.
    section: str = ""


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
    pages: Sequence,
    query: str,
    passages: Callable[[Sequence], dict[int, Sequence[Passage]]],
) -> list[Hit]:
    """Return ``pages``, one page of results, with title and snippet highlighted.

    ``passages(pages)`` returns each page's passages by id (see ``Passage``):
    the snippet is cut from the first that matches, else from the summary,
    else it is the summary's (or the body's) opening.
    """
    tokens = query_tokens(query)
    pattern = _highlight_re(query, tokens)
    found = passages(pages)
    results = []
    for page in pages:
        body = found.get(page.pk) or []
        summary = [inline_pieces(page.summary)] if page.summary else []
        snippet = (
            _excerpt(body, pattern)
            or _excerpt(summary, pattern)
            or _lead(summary or body)
        )
        results.append(
            Hit(post=page, title=_marked(page.title, pattern), snippet=snippet)
        )
    return results
