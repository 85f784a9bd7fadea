"""`/healthz`, and a Redis that is down: a miss, not an error."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.cache import caches
from redis.exceptions import ConnectionError as RedisConnectionError

from config import health
from config.cache import ForgivingRedisCache

# Nothing listens on port 1 of the loopback: a real refused connection.
DEAD_REDIS = "redis://127.0.0.1:1/0"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def redis_at(settings, monkeypatch):
    def point(url):
        settings.REDIS_URL = url
        monkeypatch.setattr(health, "_redis", None)

    yield point
    health._redis = None


def test_healthz_answers_ok_when_the_database_answers(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"
    assert "no-store" in response["Cache-Control"]


def test_healthz_answers_a_probe_by_address_over_plain_http(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # as in production
    response = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


def test_healthz_is_503_naming_redis_when_redis_is_down(client, db, redis_at):
    redis_at(DEAD_REDIS)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"database": "ok", "redis": "down: ConnectionError"}


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


def test_healthz_is_503_naming_the_database_when_it_does_not_answer():
    # A server process whose database is a port nothing listens on.
    script = (
        "from django.test import Client; r = Client().get('/healthz');"
        "print(r.status_code, r.content.decode())"
    )
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL",)},
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": "postgres://postgres@127.0.0.1:1/nowhere",
        # Pages wait this long for a database that restarts; the probe does not.
        "DATABASE_CONNECT_WAIT": "60",
    }
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    status, _, body = result.stdout.strip().splitlines()[-1].partition(" ")
    assert status == "503", result.stdout + result.stderr
    assert json.loads(body)["database"].startswith("down: OperationalError")
    assert time.monotonic() - started < 30
