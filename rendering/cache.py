"""Cache rendered HTML by content hash.

Rendering is pure and deterministic, so the output of a renderer is a function of
its arguments and of the renderer versions. ``memoize`` keys every result on a
SHA-256 of the arguments plus ``RENDERER_VERSION``, so upgrading KaTeX, Pygments or
markdown-it (or bumping ``SCHEMA``) invalidates old entries without a flush.

The default store is an in-process LRU. The Django app plugs a shared cache in at
startup with ``set_store(caches["renders"])``; this module never imports Django.

Rendering a text of N formulas must not cost N round trips to a shared cache:
inside ``batch()``, ``prefetch`` reads the entries a render will ask for with one
``get_many``, and new results are written with ``set_many`` when it ends.

A result larger than ``MAX_ENTRY_BYTES`` is returned but not kept, so a few
huge renders cannot fill the store (``set_max_entry_bytes``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, ParamSpec, Protocol, runtime_checkable

from . import budget

logger = logging.getLogger(__name__)

# Bump when the HTML our own code wraps around renderer output changes.
SCHEMA = 14

DEFAULT_MAX_ENTRIES = 4096
# Results a batch writes per set_many call: one payload stays small, and a
# long render saves its work as it goes.
WRITE_CHUNK = 1000
# The largest result kept; the app sets it from RENDER_CACHE_MAX_ENTRY_BYTES.
MAX_ENTRY_BYTES = 2_000_000

_KATEX_PACKAGE_JSON = (
    Path(__file__).resolve().parents[1] / "node_modules" / "katex" / "package.json"
)


def _package_version(name: str) -> str:
    """Return the installed version of a Python distribution, or "none"."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "none"


def _katex_package_version() -> str:
    """Return the KaTeX version from its package.json, or "none" if missing.

    Read the file rather than asking V8 so importing this module stays cheap.
    """
    try:
        return str(json.loads(_KATEX_PACKAGE_JSON.read_text("utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return "none"


RENDERER_VERSION = "-".join(
    [
        f"s{SCHEMA}",
        f"katex{_katex_package_version()}",
        f"pygments{_package_version('Pygments')}",
        f"mdit{_package_version('markdown-it-py')}",
        f"mditp{_package_version('mdit-py-plugins')}",
        f"emoji{_package_version('emoji')}",
    ]
)


@runtime_checkable
class RenderStore(Protocol):
    """A key-value store for rendered HTML; Django cache objects satisfy it."""

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value stored under ``key``, or ``default``."""
        ...

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``."""
        ...


class LRUStore:
    """A bounded, thread-safe, in-process least-recently-used store."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._data: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value stored under ``key`` (marking it recent), or default."""
        with self._lock:
            try:
                self._data.move_to_end(key)
            except KeyError:
                return default
            return self._data[key]

    def set(self, key: str, value: Any, timeout: Any = None) -> None:
        """Store ``value``, evicting the least recently used entry when full.

        ``timeout`` is accepted for Django-cache compatibility and ignored.
        """
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """Return the stored entries among ``keys`` (Django's cache API)."""
        found = {}
        with self._lock:
            for key in keys:
                if key in self._data:
                    self._data.move_to_end(key)
                    found[key] = self._data[key]
        return found

    def set_many(self, data: dict[str, Any], timeout: Any = None) -> list[str]:
        """Store every entry of ``data``; return the keys that failed (none)."""
        for key, value in data.items():
            self.set(key, value)
        return []

    def clear(self) -> None:
        """Remove every entry."""
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


_default_store = LRUStore()
_store: RenderStore = _default_store

_stats_lock = threading.Lock()
_renders: Counter[str] = Counter()
_hits: Counter[str] = Counter()


def get_store() -> RenderStore:
    """Return the store memoized renderers read from and write to."""
    return _store


def set_store(store: RenderStore | None) -> None:
    """Make ``store`` the render cache; ``None`` restores the in-process LRU."""
    global _store
    if store is None:
        store = _default_store
    if not isinstance(store, RenderStore):
        raise TypeError(f"{store!r} has no get(key, default)/set(key, value)")
    _store = store


def set_max_entry_bytes(count: int) -> None:
    """Keep no result larger than ``count`` bytes (UTF-8) in the store."""
    global MAX_ENTRY_BYTES
    if count < 1:
        raise ValueError("the largest entry kept must be at least 1 byte")
    MAX_ENTRY_BYTES = int(count)


def fits(result: str) -> bool:
    """Return whether ``result`` is small enough to keep."""
    # A character is at most 4 bytes in UTF-8: most results need no encoding.
    return len(result) * 4 <= MAX_ENTRY_BYTES or (
        len(result) <= MAX_ENTRY_BYTES
        and len(result.encode("utf-8", "surrogatepass")) <= MAX_ENTRY_BYTES
    )


@contextmanager
def use_store(store: RenderStore) -> Iterator[RenderStore]:
    """Use ``store`` inside the ``with`` block, then restore the previous one."""
    previous = _store
    set_store(store)
    try:
        yield store
    finally:
        set_store(previous)


def render_count(namespace: str | None = None) -> int:
    """Return how many actual (uncached) renders ran, for one namespace or all."""
    with _stats_lock:
        return _renders[namespace] if namespace else sum(_renders.values())


def hit_count(namespace: str | None = None) -> int:
    """Return how many renders were served from the cache."""
    with _stats_lock:
        return _hits[namespace] if namespace else sum(_hits.values())


def reset_stats() -> None:
    """Zero the render and hit counters."""
    with _stats_lock:
        _renders.clear()
        _hits.clear()


class _Batch:
    """What one ``batch()`` has read from the store and has yet to write to it."""

    def __init__(self) -> None:
        self.known: dict[str, Any] = {}  # key -> entry, or _MISSING
        self.pending: dict[str, str] = {}


_MISSING = object()
_local = threading.local()


def _current_batch() -> _Batch | None:
    return getattr(_local, "batch", None)


@contextmanager
def batch() -> Iterator[None]:
    """Serve memoized renders from what `prefetch` read, and write new ones at the end.

    Nested batches join the outermost one. A failing store is logged and
    bypassed, as for single reads.
    """
    if _current_batch() is not None:
        yield
        return
    current = _local.batch = _Batch()
    try:
        yield
    finally:
        _local.batch = None
        _write_many(_store, current.pending)


def _write_many(store: RenderStore, entries: dict[str, str]) -> None:
    items = list(entries.items())
    set_many = getattr(store, "set_many", None)
    for start in range(0, len(items), WRITE_CHUNK):
        chunk = dict(items[start : start + WRITE_CHUNK])
        try:
            if set_many is not None:
                set_many(chunk)
            else:
                for key, value in chunk.items():
                    store.set(key, value)
        except Exception:
            logger.warning("Render cache set failed", exc_info=True)
            return


def prefetch(func: Callable[..., str], calls: Iterable[tuple]) -> None:
    """Read the entries of ``func(*args)`` for every ``args`` in ``calls`` at once.

    ``func`` is a `memoize`d function. Outside ``batch()`` this does nothing.
    One ``get_many`` per call, whatever the number of entries.
    """
    current = _current_batch()
    if current is None:
        return
    key_of = func.cache_key  # type: ignore[attr-defined]
    keys = [key for args in calls if (key := key_of(*args)) not in current.known]
    if not keys:
        return
    keys = list(dict.fromkeys(keys))
    store = _store
    try:
        get_many = getattr(store, "get_many", None)
        if get_many is not None:
            found = get_many(keys)
        else:
            found = {
                key: value for key in keys if (value := store.get(key)) is not None
            }
    except Exception:
        logger.warning("Render cache get failed", exc_info=True)
        return
    for key in keys:
        current.known[key] = found.get(key, _MISSING)


def _canonical(value: Any) -> Any:
    """Return ``value`` as JSON-friendly data with a stable shape."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_canonical(item) for item in value), key=repr)
    return repr(value)


def make_key(namespace: str, payload: Any) -> str:
    """Return the cache key for ``payload`` in ``namespace``."""
    blob = json.dumps(
        _canonical(payload), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    digest = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{namespace}:{RENDERER_VERSION}:{digest}"


P = ParamSpec("P")


def memoize(
    namespace: str, deferred: Callable[..., str] | None = None
) -> Callable[[Callable[P, str]], Callable[P, str]]:
    """Return a decorator caching a str-returning pure function in the store.

    Arguments are bound to the signature first, so ``f(x)``, ``f(x, False)`` and
    ``f(x, display=False)`` share one entry. Exceptions propagate and are never
    cached. A failing store (say, Redis is down) is logged and bypassed: a cache
    outage must not take pages down with it.

    ``deferred`` is the function's stand-in, called with the same arguments
    when the render budget is spent (``rendering.budget``) and the cache lacks
    the result. A stand-in, and any result made while one was shown (a
    Markdown text around a formula put off), is returned but never kept;
    so is a result larger than ``MAX_ENTRY_BYTES``.
    """

    def decorator(func: Callable[P, str]) -> Callable[P, str]:
        signature = inspect.signature(func)
        name = f"{func.__module__}.{func.__qualname__}"
        names = tuple(signature.parameters)
        positional = all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            for p in signature.parameters.values()
        )

        def cache_key(*args: P.args, **kwargs: P.kwargs) -> str:
            if positional and not kwargs and len(args) == len(names):
                # Every argument given in order: what binding would give, at a
                # fraction of its cost (a page checks thousands of formulas).
                arguments = dict(zip(names, args, strict=True))
            else:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = bound.arguments
            return make_key(namespace, [name, arguments])

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> str:
            key = cache_key(*args, **kwargs)
            store = _store
            current = _current_batch()
            if current is not None and key in current.known:
                cached = current.known[key]
            else:
                try:
                    cached = store.get(key)
                except Exception:
                    logger.warning("Render cache get failed", exc_info=True)
                    cached = None
            if isinstance(cached, str):
                with _stats_lock:
                    _hits[namespace] += 1
                return cached
            if deferred is not None and budget.spent():
                budget.defer()
                return deferred(*args, **kwargs)
            with budget.watch() as seen:
                result = func(*args, **kwargs)
            with _stats_lock:
                _renders[namespace] += 1
            if seen.provisional or not fits(result):
                return result
            if current is not None:
                current.known[key] = current.pending[key] = result
                if len(current.pending) >= WRITE_CHUNK:
                    # Written as it goes, so a render cut short (a worker's
                    # timeout) leaves its work for the next one.
                    _write_many(store, current.pending)
                    current.pending.clear()
                return result
            try:
                store.set(key, result)
            except Exception:
                logger.warning("Render cache set failed", exc_info=True)
            return result

        wrapper.cache_key = cache_key  # type: ignore[attr-defined]
        return wrapper

    return decorator
