"""config.postgresql: a new connection waits out a database restart, not a typo.

Each test opens its own connection to the PostgreSQL on 127.0.0.1:5432 (what
CI and every machine of ours runs), whatever database the suite itself uses,
through a forwarder on loopback that plays the restarting server.
"""

import threading
import time

import pytest
from django.db import OperationalError
from django.db.utils import ConnectionHandler

from scripts.support.servers import free_port

POSTGRES = ("127.0.0.1", 5432)


def postgres_connection(port, name="postgres", user="postgres", wait=5.0):
    """Return a connection of our engine to ``name`` on ``port`` of loopback."""
    handler = ConnectionHandler(
        {
            "default": {
                "ENGINE": "config.postgresql",
                "HOST": "127.0.0.1",
                "PORT": port,
                "NAME": name,
                "USER": user,
            }
        }
    )
    connection = handler["default"]
    connection.connect_wait = wait
    return connection


@pytest.fixture(autouse=True)
def _own_connections(django_db_blocker):
    """Let these tests open their own connections (not the suite's database)."""
    with django_db_blocker.unblock():
        yield


def test_a_new_connection_waits_for_a_database_that_comes_back(forwarder):
    restarting = forwarder(POSTGRES)  # closed: the server is away
    threading.Timer(1.0, restarting.open).start()
    connection = postgres_connection(restarting.port, wait=10)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 41 + 1")
            assert cursor.fetchone() == (42,)
    finally:
        connection.close()
    assert restarting.connections == 1  # the answer came once it was back


def test_waiting_ends_with_the_error_when_the_database_stays_away():
    connection = postgres_connection(free_port(), wait=0.5)
    started = time.monotonic()
    with pytest.raises(OperationalError, match="Connection refused"):
        connection.ensure_connection()
    assert time.monotonic() - started >= 0.5


@pytest.mark.parametrize(
    ("name", "user", "message"),
    [
        ("no_such_database", "postgres", 'database "no_such_database" does not exist'),
        ("postgres", "no_such_role", 'role "no_such_role" does not exist'),
    ],
)
def test_a_mistake_in_the_settings_fails_at_once(forwarder, name, user, message):
    forwarder(POSTGRES)  # skips without a PostgreSQL here
    connection = postgres_connection(POSTGRES[1], name=name, user=user, wait=30)
    started = time.monotonic()
    with pytest.raises(OperationalError, match=message):
        connection.ensure_connection()
    # Waiting would have taken the 30 s; the error is there at once.
    assert time.monotonic() - started < 10


def test_without_waiting_a_database_away_fails_at_once():
    connection = postgres_connection(free_port(), wait=0)
    started = time.monotonic()
    with pytest.raises(OperationalError):
        connection.ensure_connection()
    assert time.monotonic() - started < 1
