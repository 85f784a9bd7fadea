"""A Redis that is down: a miss, not an error (config/cache.py)."""

import pytest
from django.core.cache import caches
from redis.exceptions import ConnectionError as RedisConnectionError

from config.cache import ForgivingRedisCache

# Nothing listens on port 1 of the loopback: a real refused connection.
DEAD_REDIS = "redis://127.0.0.1:1/0"


def test_a_redis_that_is_down_reads_as_a_miss_but_deletes_fail():
    cache = ForgivingRedisCache(DEAD_REDIS, {"OPTIONS": {"socket_connect_timeout": 1}})
    assert cache.get("page", "missing") == "missing"
    assert cache.get_many(["a", "b"]) == {}
    assert cache.add("token", "x") is False
    cache.set("page", b"html")  # nothing kept, nothing raised
    assert cache.set_many({"a": 1}) == ["a"]
    with pytest.raises(RedisConnectionError):
        cache.delete_many(["token"])  # a purge that failed must be seen


def test_pages_are_served_while_redis_is_down(client, home, settings):
    settings.PAGE_CACHE_SECONDS = 3600
    dead = ForgivingRedisCache(DEAD_REDIS, {"OPTIONS": {"socket_connect_timeout": 1}})
    for alias in ("default", "renders"):
        caches[alias] = dead
    try:
        response = client.get("/")
    finally:
        for alias in ("default", "renders"):
            del caches[alias]
    assert response.status_code == 200
    assert "刘芷溢的博客" in response.content.decode()  # the header, rendered afresh


def test_after_a_failure_redis_is_left_alone_for_a_moment(monkeypatch):
    cache = ForgivingRedisCache(DEAD_REDIS, {"OPTIONS": {"socket_connect_timeout": 1}})
    tries = []
    real_get_many = cache._cache.get_many

    def counted(*args, **kwargs):
        tries.append(args)
        return real_get_many(*args, **kwargs)

    monkeypatch.setattr(cache._cache, "get_many", counted)
    assert cache.get_many(["a"]) == {}
    assert cache.get_many(["b"]) == {}  # within RETRY_AFTER: not tried
    assert len(tries) == 1
    monkeypatch.setattr(cache, "_down_until", 0.0)  # the moment has passed
    assert cache.get_many(["c"]) == {}
    assert len(tries) == 2
