"""`/healthz`: 200 when the database (and Redis, if set) answer, 503 otherwise."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serving import health

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
