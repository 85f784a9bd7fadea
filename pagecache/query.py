"""Which query parameters a cached page was made from: declared by its view.

The page cache keys a page by its query string, so a parameter that no page
reads (``?q=junk`` on a post, ``?utm_source=…``) must not make a new entry,
or anyone could fill the cache. The middleware does not know which page reads
what; each view says, while it renders, which parameters it read and the
value it used of each (``reads_query``): a listing its ``page`` number, search
its ``q`` and ``page``. A view that declares nothing reads nothing.

A page is stored only when the request's query string is exactly what the
page declared (each declared parameter once, with the value used, nothing
else): ``?page=2`` on a listing is stored, ``?page=02``, ``?page=99999``
(shown as the last page) or ``?page=2&x=1`` are rendered but not stored.
The key is the query string normalised (``normalised_query``), so ``?page=02``
is served the copy ``?page=2`` stored. So every cached variant of a page is one
its own links ask for, and unknown parameters bypass the cache.
"""

from urllib.parse import urlencode

# What a view declared, kept on the request for the middleware above it.
_ATTRIBUTE = "_page_cache_query"


def reads_query(request, *, seconds: int | None = None, **values) -> None:
    """Declare the query parameters this response was made from.

    ``values`` are the values the view used, normalised as a link to the
    page writes them; None or "" for a parameter read but absent (the first
    page of a listing). ``seconds``, when set, caps how long the page is kept
    (search results, whose queries are many).
    """
    used = {
        name: str(value) for name, value in values.items() if value not in (None, "")
    }
    setattr(request, _ATTRIBUTE, (used, seconds))


def declared(request) -> tuple[dict[str, str], int | None]:
    """Return the parameters the view declared with their values, and its lifetime."""
    return getattr(request, _ATTRIBUTE, ({}, None))


# The parameters whose values are numbers: ``?page=02`` is ``?page=2``. Any
# other value is kept as given (``?q=064`` searches for something else than
# ``?q=64``), trimmed.
NUMBERS = frozenset({"page"})


def normalised_value(name: str, value: str) -> str:
    """Return a parameter's value as a key holds it: trimmed, numbers without zeros."""
    value = value.strip()
    if name in NUMBERS and value.isascii() and value.isdigit():
        return str(int(value))
    return value


def normalised_query(query) -> str:
    """Return a QueryDict as a key holds it.

    Sorted by name; one value each, the last one (what ``QueryDict.get``, and
    so every view, reads); empty values dropped.
    """
    pairs = {name: normalised_value(name, query[name]) for name in query}
    return urlencode(sorted((name, value) for name, value in pairs.items() if value))


def is_as_declared(request) -> bool:
    """Whether the request's query string is exactly what its page declared."""
    used, _ = declared(request)
    query = request.GET
    return set(query) == set(used) and all(
        query.getlist(name) == [value] for name, value in used.items()
    )
