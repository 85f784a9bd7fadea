"""The cache backends: diskcache left open (no Redis), Redis that may fail.

redis-py is imported only when a Redis cache is made: a site without Redis
does not load its sixty modules (7 MB in each worker).
"""

import logging
import time

from diskcache import DjangoCache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)


class DiskCache(DjangoCache):
    """diskcache's Django backend, its SQLite connections kept between requests.

    Django closes every cache when a request ends. diskcache's ``close()``
    drops the connection to each of its shards, so the next request would open
    them all again on every request (docs/performance.md). Its author advises leaving a
    cache open: every operation is atomic, and each thread has its own
    connections.
    """

    def close(self, **kwargs):
        """Keep the connections open: Django calls this after every request."""


class ForgivingRedisCache(RedisCache):
    """Django's Redis cache, where Redis being down reads as a miss.

    Pages and renders are then made afresh, slower, instead of every request
    failing. After an error Redis is left alone for ``RETRY_AFTER`` seconds,
    so a request does not wait on a dozen refused connections. Reads and
    writes are forgiven; deletes are not: a purge that did not happen must not
    pass unnoticed (``pagecache.cache`` logs it).
    """

    RETRY_AFTER = 1.0

    def __init__(self, server, params):
        from redis.exceptions import RedisError

        super().__init__(server, params)
        self._down_until = 0.0
        self._error = RedisError

    def _forgiving(self, operation, fallback, call, *args):
        if time.monotonic() < self._down_until:
            return fallback
        try:
            return call(*args)
        except self._error as error:
            self._down_until = time.monotonic() + self.RETRY_AFTER
            logger.warning("Redis unavailable, %s skipped: %s", operation, error)
            return fallback

    def get(self, key, default=None, version=None):
        return self._forgiving("get", default, super().get, key, default, version)

    def get_many(self, keys, version=None):
        return self._forgiving("get_many", {}, super().get_many, keys, version)

    def has_key(self, key, version=None):
        return self._forgiving("has_key", False, super().has_key, key, version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._forgiving("add", False, super().add, key, value, timeout, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._forgiving("set", None, super().set, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._forgiving(
            "set_many", list(data), super().set_many, data, timeout, version
        )

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._forgiving("touch", False, super().touch, key, timeout, version)
