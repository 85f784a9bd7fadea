"""config.postgresql: a new connection waits out a database restart, not a typo.

Each test opens its own connection to the PostgreSQL on 127.0.0.1:5432 (what
CI and every machine of ours runs), whatever database the suite itself uses,
through a forwarder on loopback that plays the restarting server.
"""

import socket
import threading
import time

import pytest
from django.db import OperationalError
from django.db.utils import ConnectionHandler

POSTGRES = ("127.0.0.1", 5432)


def postgres_connection(port=POSTGRES[1], name="postgres", wait=5.0):
    """Return a connection of our engine to ``name`` on ``port`` of loopback."""
    handler = ConnectionHandler(
        {
            "default": {
                "ENGINE": "config.postgresql",
                "HOST": "127.0.0.1",
                "PORT": port,
                "NAME": name,
                "USER": "postgres",
            }
        }
    )
    connection = handler["default"]
    connection.connect_wait = wait
    return connection


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LateServer:
    """PostgreSQL on ``port``, but only ``after`` seconds from now (a restart)."""

    def __init__(self, port: int, after: float):
        self.port, self.after = port, after
        self.listener: socket.socket | None = None
        self.opened_at: float | None = None
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        time.sleep(self.after)
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.opened_at = time.monotonic()
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            upstream = socket.create_connection(POSTGRES)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        sink.close()


@pytest.fixture(autouse=True)
def _own_connections(django_db_blocker):
    """Let these tests open their own connections (not the suite's database)."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture
def late_server():
    servers = []

    def start(after):
        server = LateServer(free_port(), after)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_a_new_connection_waits_for_a_database_that_comes_back(late_server):
    server = late_server(after=1.0)
    connection = postgres_connection(server.port, wait=10)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 41 + 1")
            assert cursor.fetchone() == (42,)
    finally:
        connection.close()
    # The answer came through the server that opened late, once it had opened.
    assert server.opened_at is not None


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
def test_a_mistake_in_the_settings_fails_at_once(name, user, message):
    connection = postgres_connection(name=name, wait=30)
    connection.settings_dict["USER"] = user
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
