"""Servers and databases of their own, for the tests and the scripts alike.

`DemoServer` serves the demo blog with gunicorn in its own process: the
browser tests drive it (test settings, static files from the finders) and
`make audit` measures it (production settings, collected static files). Each
server gets a fresh folder: an SQLite database, migrated and filled by
`load_demo`, and its media. Nothing is shared with the pytest database, so the
browser tests see the same site however the rest of the suite is configured
(SQLite or PostgreSQL). `fresh_postgres_database` gives the benchmark, the
soak and the scale-out tests an empty database of their own.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
GUNICORN = Path(sys.executable).with_name("gunicorn")

# Variables of the calling shell that would point the server elsewhere.
DROPPED_ENV = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict[str, str], *args: str, timeout: float | None = None) -> str:
    """Run ``manage.py`` with this environment; return its output, raise if it fails."""
    result = subprocess.run(  # noqa: S603
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    if result.returncode:
        raise RuntimeError(
            f"manage.py {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
        )
    return result.stdout


def collect_static(env: dict[str, str]) -> None:
    """Run ``collectstatic`` into the project's one STATIC_ROOT, one caller at a time.

    Test workers and scripts running side by side would otherwise write and
    compress the same files at once, and one of them read a file another
    was replacing.
    """
    digest = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    lock = Path(tempfile.gettempdir()) / f"blog-collectstatic-{digest}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            manage(env, "collectstatic", "--noinput", "--verbosity", "0")
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


@contextmanager
def fresh_postgres_database(server_url: str, name: str) -> Iterator[str]:
    """Yield the URL of a new, empty database ``name``; drop it afterwards.

    ``server_url`` is any database URL of the PostgreSQL server to make it on.
    """
    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
        sql.Identifier(name)
    )

    def execute(statement):
        with psycopg.connect(server_url, autocommit=True) as connection:
            connection.execute(statement)

    execute(drop)
    execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        execute(drop)


def wait_until_serving(process, url, timeout, log_tail, *, ready=None) -> None:
    """Wait until ``url`` answers 200 (and ``ready()``, if given, is true).

    Raise with ``log_tail()`` when the server exits or ``timeout`` seconds pass.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"The server exited:\n{log_tail()}")
        try:
            with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310
                if response.status == 200 and (ready is None or ready()):
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"The server did not answer within {timeout} s:\n{log_tail()}")


class DemoServer:
    """gunicorn serving the demo blog on 127.0.0.1; a context manager.

    ``settings_module`` must put the database and media in the folder
    ``DEMO_SERVER_DIR`` names (see `scripts/support/audit_settings.py`).
    ``imports`` are Markdown folders imported after the demo, each with the
    path of the page to import it under.
    """

    def __init__(
        self,
        settings_module: str,
        *,
        env: dict[str, str] | None = None,
        imports: Sequence[tuple[Path, str]] = (),
        collectstatic: bool = False,
        workers: int = 1,
        threads: int = 8,
        startup_timeout: float = 60,
    ):
        self.settings_module = settings_module
        self.extra_env = env or {}
        self.imports = tuple(imports)
        self.collectstatic = collectstatic
        self.workers = workers
        self.threads = threads
        self.startup_timeout = startup_timeout
        self.process = None
        self.folder = None
        self.log = None
        self.url = ""

    def __enter__(self) -> DemoServer:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        env.update(
            DJANGO_SETTINGS_MODULE=self.settings_module,
            DEMO_SERVER_DIR=str(self.folder),
            PYTHONPATH=str(ROOT),
        )
        env.update(self.extra_env)
        return env

    def manage(self, *args: str) -> None:
        """Run a management command against this server's database."""
        manage(self.env, *args)

    def start(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="demo-server-"))
        try:
            self.manage("migrate", "--noinput", "--verbosity", "0")
            self.manage("load_demo", "--verbosity", "0")
            for vault, parent in self.imports:
                self.manage("import_markdown", str(vault), "--parent", parent)
            if self.collectstatic:
                collect_static(self.env)
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            self.log = (self.folder / "server.log").open("w")
            self.process = subprocess.Popen(  # noqa: S603
                [
                    str(GUNICORN),
                    "config.wsgi",
                    f"--bind=127.0.0.1:{port}",
                    f"--workers={self.workers}",
                    f"--threads={self.threads}",
                    "--access-logfile=-",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
            self.wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def wait_until_ready(self) -> None:
        wait_until_serving(
            self.process, self.url + "/", self.startup_timeout, self.server_log
        )

    def server_log(self) -> str:
        if self.folder is None or not (self.folder / "server.log").exists():
            return ""
        return (self.folder / "server.log").read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.log is not None:
            self.log.close()
            self.log = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


class TaskWorkers:
    """``count`` task workers (``manage.py db_worker``) beside a server; a context manager.

    They read the queue of the database ``env`` names, as a deployment's
    workers do; their output goes to ``folder/<name>-<n>.log``.
    """

    def __init__(
        self, env: dict[str, str], folder: Path, *, count: int = 1, name="tasks"
    ):
        self.env = env
        self.folder = folder
        self.count = count
        self.name = name
        self.processes: list[subprocess.Popen] = []

    def __enter__(self) -> TaskWorkers:
        self.folder.mkdir(parents=True, exist_ok=True)
        for number in range(1, self.count + 1):
            with (self.folder / f"{self.name}-{number}.log").open("w") as log:
                self.processes.append(
                    subprocess.Popen(  # noqa: S603
                        [
                            PYTHON,
                            "manage.py",
                            "db_worker",
                            "--worker-id",
                            f"{self.name}-{number}",
                            "--no-reload",
                        ],
                        cwd=ROOT,
                        env=self.env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
        return self

    def wait_until_idle(self, database: Path | str, timeout: float = 600) -> None:
        """Return once no task waits or runs in the queue of ``database``.

        ``database`` is the site's SQLite file or a PostgreSQL URL. Raise if a
        worker stops or the queue is not empty after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while (counts := task_counts(database)).get("READY", 0) + counts.get(
            "RUNNING", 0
        ):
            if any(process.poll() is not None for process in self.processes):
                raise RuntimeError(
                    f"a task worker stopped; see {self.folder}/{self.name}-*.log"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"the task workers left {counts} after {timeout} s")
            time.sleep(0.5)

    def __exit__(self, *exc_info) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = []


QUEUE_COUNTS = (
    "SELECT status, count(*) FROM django_tasks_database_dbtaskresult GROUP BY status"
)


def task_counts(database: Path | str) -> dict[str, int]:
    """Count a site's tasks by status, without Django.

    ``database`` is its SQLite file (read only) or a PostgreSQL URL.
    """
    if isinstance(database, Path):
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            return dict(connection.execute(QUEUE_COUNTS).fetchall())
        finally:
            connection.close()
    with psycopg.connect(database) as connection:
        return dict(connection.execute(QUEUE_COUNTS).fetchall())
