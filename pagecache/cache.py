"""A full-page cache for anonymous readers, purged by URL path.

Public pages are read far more often than they change, so the finished
response — compressed, with its ETag — is kept in Django's ``default`` cache
(Redis when ``REDIS_URL`` is set) and served without touching the database.

Every entry's key holds two tokens: one for the whole site and one for the URL
path. Purging a path deletes its token, which orphans every cached variant of
it at once (``?page=2``, any encoding, any host); purging everything deletes the
site's token. A missing token is replaced by a fresh random one, so a token the
cache evicted can never bring an old entry back. Orphans expire on their own.
The site's token is kept per release of the code (``pagecache.release``), so a
deploy orphans everything the previous release cached.

What is cached: GET and HEAD requests without a session cookie, outside the
admin, whose query string is exactly what the page's view declared it read
(``pagecache.query``), answered 200 without cookies, without ``Vary:
Cookie`` and without ``Cache-Control: private``/``no-store``. Editors carry a
session cookie, so they never read or fill the cache, and neither do previews;
a password-protected page answers a visitor with a form that sets the CSRF
cookie, so it is never stored. ``PAGE_CACHE_SECONDS = 0`` turns it all off.

Each purge is written to the database with the change (``PendingPurge``) and
its row deleted once the cache has taken it; one the cache did not take is made
by the next process that reads the cache (``purges_pending``), so an outage of
the cache, or a restart, loses no purge.

Which paths a change purges is decided in ``pagecache.purge``; the middleware
that serves and stores pages is ``pagecache.middleware``.
"""

import hashlib
import logging
import pickle
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from django.db import transaction

from pagecache.release import release

logger = logging.getLogger(__name__)

T = TypeVar("T")


def page_cache():
    """Return the cache pages are kept in."""
    return caches[settings.PAGE_CACHE_ALIAS]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def site_token_key() -> str:
    """Return the key of the whole site's token: one per release of the code.

    A new release starts with a token of its own, so nothing cached by the
    previous one is served (``pagecache.release``). Path tokens are shared by the
    releases: a purge made by either, during a rolling deploy, reaches both.
    """
    return f"pagecache:site:{release()}"


def path_token_key(path: str) -> str:
    """Return the key of the token that every cached variant of ``path`` carries."""
    return f"pagecache:path:{digest(path)}"


# The tokens read during the current request, by key. A page reads the site's
# token once for each figure it keeps (3 to 10 times) and its own path's more
# than once: each read is a round trip to Redis or a query of diskcache's
# SQLite. Kept for one request only (``PageCacheMiddleware``), so a purge made
# elsewhere meanwhile is seen by the next request, as before; a purge this
# request makes drops the tokens it purged (``_delete``).
_read_tokens: ContextVar[dict[str, str] | None] = ContextVar(
    "page_cache_tokens", default=None
)


@contextmanager
def tokens_read_once() -> Iterator[None]:
    """Read each token at most once until the block ends: the length of a request."""
    reset = _read_tokens.set({})
    try:
        yield
    finally:
        _read_tokens.reset(reset)


def current_tokens(cache, keys: list[str], minted: set | None = None) -> list[str]:
    """Return the current token under each key, minting the missing ones.

    The keys of the tokens this call minted are added to ``minted``, when
    given: a request whose page turns out not to be kept (a 404, say) takes
    its path's token back (``forget_tokens``), so made-up paths leave nothing
    behind. Tokens expire after ``token_seconds()``; what was kept under an
    expired one is orphaned, never served again.
    """
    read = _read_tokens.get()
    if read is None:
        read = {}
    unread = [key for key in dict.fromkeys(keys) if key not in read]
    found = cache.get_many(unread) if unread else {}
    for key in unread:
        token = found.get(key)
        if token is None:
            # add() keeps the first token two processes race to mint. A cache
            # too busy to answer gets a token of this request's own: its copy
            # is stored under a key no later request asks for.
            added = cache.add(key, secrets.token_hex(8), timeout=token_seconds())
            if added and minted is not None:
                minted.add(key)
            token = cache.get(key) or secrets.token_hex(8)
        read[key] = token
    return [read[key] for key in keys]


def read_ahead(cache, keys: list[str]) -> None:
    """Read these tokens in one call, to be taken from there until the request ends.

    For a request that will need several (its site's, then its path's): one
    round trip instead of one each. Nothing is minted here: a missing token
    is minted by whoever asks for it (``current_tokens``). Outside
    ``tokens_read_once`` it does nothing.
    """
    read = _read_tokens.get()
    if read is None:
        return
    unread = [key for key in dict.fromkeys(keys) if key not in read]
    if unread:
        read.update(cache.get_many(unread))


def forget_tokens(keys) -> None:
    """Delete these tokens: what was kept under them is orphaned, as by a purge."""
    if keys:
        _delete_tokens(sorted(keys))


def token_seconds() -> int:
    """Return how long a token is kept: at least as long as what is kept under it."""
    return max(
        settings.PAGE_CACHE_TOKEN_SECONDS,
        settings.PAGE_CACHE_SECONDS,
        settings.LISTING_CACHE_SECONDS,
    )


def site_paths(url_path: str, root_paths=None) -> list[str]:
    """Return the paths a page with this tree ``url_path`` is served at.

    One per site whose root is above it (usually one); none when no site
    serves it. Works for old url_paths as well as current ones. ``root_paths``
    is Wagtail's ``Site.get_site_root_paths()``, when the caller has it.
    """
    from wagtail.models import Site

    if root_paths is None:
        root_paths = Site.get_site_root_paths()
    return [
        url_path[len(root_path) - 1 :]
        for _, root_path, _, _ in root_paths
        if url_path.startswith(root_path)
    ]


def page_tokens(url_path: str) -> list[str]:
    """Return the current tokens of the site and of a page's paths.

    They change whenever the page's cached copies are purged, so a cache entry
    keyed on them (the rendered body, say) is dropped with the page.
    """
    return path_tokens(site_paths(url_path))


def path_tokens(paths) -> list[str]:
    """Return the current tokens of the site and of these served paths."""
    keys = [site_token_key()] + [path_token_key(p) for p in paths]
    return current_tokens(page_cache(), keys)


def pages_tokens(url_paths: list[str]) -> list[list[str]]:
    """Return ``page_tokens`` of each of these tree paths, read in one cache call."""
    from wagtail.models import Site

    root_paths = Site.get_site_root_paths()
    served = [site_paths(url_path, root_paths) for url_path in url_paths]
    site_key = site_token_key()
    keys = [site_key, *{path_token_key(p): None for ps in served for p in ps}]
    token = dict(zip(keys, current_tokens(page_cache(), keys), strict=True))
    return [
        [token[key] for key in (site_key, *map(path_token_key, ps))] for ps in served
    ]


def remember(url_path: str, name: str, compute: Callable[[], T]) -> T:
    """Return ``compute()`` for the page at ``url_path``, kept until it is purged.

    ``url_path`` is a page's path in the tree; ``remember_at`` takes a served path.

    For the figures a listing shows that cost a pass over every post: its
    count, the counts per section, tag or year. They change only when a post is
    published, unpublished, moved, retagged or deleted, and each of those purges
    the pages that show them (``pagecache.purge``), which changes this key.
    A failing cache is bypassed; ``LISTING_CACHE_SECONDS = 0`` turns it off.
    """
    return remember_at(site_paths(url_path), name, compute)


# What ``remember_site`` keeps, held in this process too: by name, the site's
# token it was kept under and the value pickled (a fresh copy for each caller,
# as from the cache). A few entries: one per name.
_site_values: dict[str, tuple[str, bytes]] = {}


def remember_site(name: str, compute: Callable[[], T]) -> T:
    """Return ``compute()`` for the whole site, kept until anything is purged.

    For what only a site-wide purge changes: the site itself, say. Read on
    every request (the site serving it), it is held in this process as well,
    under the site's token: a request then reads the token (which it reads
    anyway, to key its page) and not the value.
    """
    if settings.LISTING_CACHE_SECONDS <= 0 or purges_pending():
        return remember_at([], name, compute)
    try:
        token = path_tokens([])[0]
    except Exception:
        return remember_at([], name, compute)  # which logs and bypasses the cache
    held = _site_values.get(name)
    if held is not None and held[0] == token:
        return pickle.loads(held[1])  # noqa: S301 - pickled by this process
    value = remember_at([], name, compute)
    _site_values[name] = (token, pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    return value


def remember_at(
    paths,
    name: str,
    compute: Callable[[], T],
    *,
    seconds: int | None = None,
    keep: Callable[[T], bool] | None = None,
) -> T:
    """Return ``compute()`` for what is served at ``paths``, kept until purged.

    Kept at most ``seconds`` when given (what any request can ask for, one
    entry each), and only a value ``keep`` accepts.
    """
    timeout = settings.LISTING_CACHE_SECONDS
    if seconds is not None:
        timeout = min(timeout, seconds)
    if timeout <= 0:
        return compute()
    return kept(
        lambda: f"listing:{digest(repr([name, path_tokens(paths)]))}",
        compute,
        timeout,
        keep,
    )


def kept(
    key: Callable[[], str],
    compute: Callable[[], T],
    timeout: int,
    keep: Callable[[T], bool] | None = None,
) -> T:
    """Return the ``renders`` cache's value under ``key()``, or compute and keep it.

    ``key`` is a function because it reads the page cache's tokens, which may
    fail too. A failing cache is logged and bypassed: an outage must not take
    pages down with it. A value ``keep`` refuses is returned but not kept.
    """
    return kept_many(1, lambda: [key()], lambda _: [compute()], timeout, keep)[0]


def kept_many(
    count: int,
    keys: Callable[[], list[str]],
    compute: Callable[[list[int]], list[T]],
    timeout: int,
    keep: Callable[[T], bool] | None = None,
) -> list[T]:
    """Return ``kept`` of ``count`` values at once: one cache read for them all.

    ``keys()`` returns their ``count`` keys; ``compute(indexes)`` the values
    at those indexes, the ones the cache lacks, in one go; a value of None,
    one ``keep`` refuses, or one larger than ``RENDER_CACHE_MAX_ENTRY_BYTES``
    pickled, is returned but not kept.
    """
    if purges_pending():  # the keys would read tokens that were to be purged
        return compute(list(range(count)))
    store = caches["renders"]
    try:
        names = keys()
        found = store.get_many(names)
    except Exception:
        logger.warning("Render cache unavailable", exc_info=True)
        return compute(list(range(count)))
    values = [found.get(name) for name in names]
    todo = [i for i, value in enumerate(values) if value is None]
    if not todo:
        return values
    made = {}
    for i, value in zip(todo, compute(todo), strict=True):
        values[i] = value
        if value is not None and (keep is None or keep(value)) and _fits(value):
            made[names[i]] = value
    if not made:
        return values
    try:
        store.set_many(made, timeout)
    except Exception:
        kinds = sorted({name.partition(":")[0] for name in made})
        logger.warning("Could not keep %s", ", ".join(kinds), exc_info=True)
    return values


def _fits(value) -> bool:
    """Return whether ``value`` is small enough for the ``renders`` cache to keep."""
    size = len(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    if size <= settings.RENDER_CACHE_MAX_ENTRY_BYTES:
        return True
    logger.info("Not keeping a render of %s bytes: larger than the bound", size)
    return False


# While a bulk change (an import) purges everything once at its end: whether a
# purge was asked for meanwhile.
_purge_at_end: ContextVar[list[bool] | None] = ContextVar("purge_at_end", default=None)


@contextmanager
def purge_all_at_end() -> Iterator[None]:
    """Purge every cached page once, when the block ends, instead of after each change.

    For changes to many pages at once, which show on most pages anyway: what
    each change shows is not worked out (a few queries a page), and a block
    that changed nothing purges nothing. Only the calling thread (or task) is
    affected. Nested blocks purge at the outermost one's end; the purge waits
    for the transaction to commit, as any purge.
    """
    if _purge_at_end.get() is not None:
        yield
        return
    asked: list[bool] = []
    reset = _purge_at_end.set(asked)
    try:
        yield
    finally:
        _purge_at_end.reset(reset)
        if asked:
            purge_all()


def purge_deferred() -> bool:
    """Whether a purge asked for now is left to the end of `purge_all_at_end`.

    True notes that one is due: the caller then purges nothing itself.
    """
    asked = _purge_at_end.get()
    if asked is None:
        return False
    asked.append(True)
    return True


def purge_paths(paths) -> None:
    """Drop every cached copy of these URL paths, once the transaction commits.

    Purging before the commit would let a request in between cache the old
    content again. A CDN in front (``WAGTAILFRONTENDCACHE``) is told too.
    """
    if purge_deferred():
        return
    paths = sorted(set(paths))
    keys = sorted({path_token_key(path) for path in paths})
    if keys:
        pending = _record(keys)
        transaction.on_commit(lambda: (_delete(pending), _purge_frontend(paths)))


def purge_all() -> None:
    """Drop every cached page, once the transaction commits.

    A CDN is asked to purge ``/*``: CloudFront takes it as everything; a
    Varnish or nginx purger maps it to a ban of the whole site.
    """
    if purge_deferred():
        return
    pending = _record([site_token_key()])
    transaction.on_commit(lambda: (_delete(pending), _purge_frontend(["/*"])))


def _purge_frontend(paths: list[str]) -> None:
    """Purge these paths of every site from the CDN, if one is configured."""
    if not getattr(settings, "WAGTAILFRONTENDCACHE", None):
        return
    from wagtail.contrib.frontend_cache.utils import purge_urls_from_cache
    from wagtail.models import Site

    try:
        roots = {root_url for _, _, root_url, _ in Site.get_site_root_paths()}
        purge_urls_from_cache(
            [root.rstrip("/") + path for root in roots for path in paths]
        )
    except Exception:
        logger.exception("Could not purge %d paths from the CDN", len(paths))


# The purges this process is making: written in a transaction not yet
# committed, or committed and being sent to the cache. A replay leaves them to
# their own ``_delete``: one made before the commit could let a request cache
# the old content again, and the purge's record would be gone.
_own: set = set()


def _record(keys: list[str]):
    """Write down a purge of these token keys, in the current transaction."""
    from pagecache.models import PendingPurge

    pending = PendingPurge.objects.create(keys=keys)
    _own.add(pending.pk)
    return pending


def _delete_tokens(keys: list[str]) -> None:
    """Forget these token keys in this request, then delete them from the cache."""
    read = _read_tokens.get()
    for key in keys if read else ():
        read.pop(key, None)
    page_cache().delete_many(keys)


def _delete(pending) -> None:
    """Delete a recorded purge's token keys from the cache, then its record."""
    keys = pending.keys
    try:
        _delete_tokens(keys)
    except Exception:
        logger.exception(
            "Could not purge %d paths from the page cache; trying again", len(keys)
        )
        _own.discard(pending.pk)
        with _state.lock:
            _state.pending, _state.checked_at = True, time.monotonic()
        return
    try:
        pending.delete()
    except Exception:  # made again later, which only costs a few misses
        logger.warning("Could not delete a purge's record", exc_info=True)
    finally:
        _own.discard(pending.pk)


# A purge that did not reach the cache (Redis down, or cut off from this
# server) is still in the database (``PendingPurge``), which outlives this
# process. Whether any is pending is asked of the database every
# ``PAGE_CACHE_PURGE_CHECK_SECONDS`` (1 s by default; 0 before every read of
# the cache; None only after this process's own purge failed), and while one
# is, nothing is served or kept from the cache, and the purges are made again
# every RETRY_PURGE_EVERY seconds until the cache takes them. So a cache that
# comes back with its old entries serves none of the pages changed meanwhile,
# whichever process made the change and whether or not it still runs; a
# server that asked just before the change may serve the old copy for the
# rest of that second.
RETRY_PURGE_EVERY = 1.0


class ProcessState:
    """What this process knows of the pending purges: a new process knows nothing."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pending = False
        self.checked_at = float("-inf")


_state = ProcessState()


def purges_pending() -> bool:
    """Whether a purge has yet to reach the cache, made again if it is due.

    Asks the database (one query on a table that is empty but for an outage)
    at most every ``PAGE_CACHE_PURGE_CHECK_SECONDS``, or every
    RETRY_PURGE_EVERY seconds once a purge is known to be pending.
    """
    every = getattr(settings, "PAGE_CACHE_PURGE_CHECK_SECONDS", 1.0)
    now = time.monotonic()
    with _state.lock:
        since = now - _state.checked_at
        if _state.pending:
            due = since >= RETRY_PURGE_EVERY
        else:
            due = every is not None and since >= every
        if not due:
            return _state.pending
        _state.checked_at = now
    pending = not replay_purges()
    with _state.lock:
        _state.pending = pending
    return pending


def replay_purges() -> bool:
    """Make the purges recorded in the database; return whether none is left."""
    from pagecache.models import PendingPurge

    try:
        rows = list(
            PendingPurge.objects.exclude(pk__in=list(_own)).values_list("pk", "keys")
        )
    except Exception:  # the database is down: no change can be made either
        logger.warning("Could not read the pending purges", exc_info=True)
        return not _state.pending
    if not rows:
        return True
    keys = sorted({key for _, row_keys in rows for key in row_keys})
    try:
        _delete_tokens(keys)
    except Exception:
        logger.debug("The page cache is still unreachable", exc_info=True)
        return False
    try:
        PendingPurge.objects.filter(pk__in=[pk for pk, _ in rows]).delete()
    except Exception:
        logger.warning("Could not delete the purges' records", exc_info=True)
    logger.warning(
        "Purged %d paths from the page cache, recorded while it was unreachable",
        len(keys),
    )
    return True
