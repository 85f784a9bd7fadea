"""The cache backends: diskcache left open (no Redis), Redis that may fail."""

import contextlib
import logging

from diskcache import DjangoCache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class DiskCache(DjangoCache):
    """diskcache's Django backend, its SQLite connections kept between requests.

    Django closes every cache when a request ends. diskcache's ``close()``
    drops the connection to each of its shards, so the next request would open
    them all again (about 15 ms a request here). Its author advises leaving a
    cache open: every operation is atomic, and each thread has its own
    connections.
    """

    def close(self, **kwargs):
        """Keep the connections open: Django calls this after every request."""


class ForgivingRedisCache(RedisCache):
    """Django's Redis cache, where Redis being down reads as a miss.

    Pages and renders are then made afresh, slower, instead of every request
    failing. Reads and writes are forgiven; deletes are not: a purge that did
    not happen must not pass unnoticed (``blog.pagecache`` logs it).
    """

    def get(self, key, default=None, version=None):
        with _forgiven("get"):
            return super().get(key, default, version)
        return default

    def get_many(self, keys, version=None):
        with _forgiven("get_many"):
            return super().get_many(keys, version)
        return {}

    def has_key(self, key, version=None):
        with _forgiven("has_key"):
            return super().has_key(key, version)
        return False

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with _forgiven("add"):
            return super().add(key, value, timeout, version)
        return False

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        with _forgiven("set"):
            super().set(key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        with _forgiven("set_many"):
            return super().set_many(data, timeout, version)
        return list(data)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        with _forgiven("touch"):
            return super().touch(key, timeout, version)
        return False


@contextlib.contextmanager
def _forgiven(operation: str):
    """Log a Redis error and go on (the caller then returns its fallback)."""
    try:
        yield
    except RedisError as error:
        logger.warning("Redis unavailable, %s skipped: %s", operation, error)
