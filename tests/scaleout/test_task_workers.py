"""Two task workers share one PostgreSQL queue; one killed mid-task loses nothing.

Real processes (`manage.py db_worker`, ours: it beats, background/workers.py)
on a fresh database: a task that hangs its first run is claimed by one worker,
which is then killed with SIGKILL (no chance to clean up). The other worker
notices the silence and runs the task again, to the end.
"""

import json
import os
import secrets
import signal
import subprocess
import time

import psycopg
import pytest

from scripts.support.servers import (
    DROPPED_ENV,
    PYTHON,
    ROOT,
    fresh_postgres_database,
    manage,
)

DATABASE_URL = os.environ.get("DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not DATABASE_URL.startswith("postgres"), reason="needs DATABASE_URL (PostgreSQL)"
)
LOST_SECONDS = 4
ENQUEUE = (
    "from tests.background.tasks import hangs_the_first_time as t;"
    "print(t.enqueue({folder!r}).id)"
)


def wait_for(what, check, timeout):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.2)


def test_a_killed_workers_task_is_finished_by_the_other(tmp_path):
    with fresh_postgres_database(
        DATABASE_URL, f"workers_{secrets.token_hex(3)}"
    ) as url:
        env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.production",
            PYTHONPATH=str(ROOT),
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=url,
            TASK_WORKER_LOST_SECONDS=str(LOST_SECONDS),
            LOG_LEVEL="WARNING",
        )
        manage(env, "migrate", "--noinput", "-v", "0")
        workers = {
            name: subprocess.Popen(  # noqa: S603
                [
                    PYTHON,
                    "manage.py",
                    "db_worker",
                    "--no-reload",
                    "--worker-id",
                    name,
                    "--no-startup-delay",
                    "--interval",
                    "0.2",
                ],
                cwd=ROOT,
                env=env,
                stdout=(tmp_path / f"{name}.log").open("w"),
                stderr=subprocess.STDOUT,
            )
            for name in ("w1", "w2")
        }
        try:
            task_id = manage(env, "shell", "-c", ENQUEUE.format(folder=str(tmp_path)))
            task_id = task_id.strip().splitlines()[-1]
            wait_for("a worker starts the task", (tmp_path / "started").exists, 30)

            with psycopg.connect(url) as db:
                (claimed,) = db.execute(
                    "SELECT worker_ids FROM django_tasks_database_dbtaskresult "
                    "WHERE id = %s",
                    [task_id],
                ).fetchone()
            (first,) = claimed
            workers[first].send_signal(signal.SIGKILL)
            workers[first].wait(timeout=10)

            wait_for(
                "the other worker finishes it",
                (tmp_path / "finished").exists,
                LOST_SECONDS * 3 + 10,
            )
            with psycopg.connect(url) as db:
                status, ran_by, value = db.execute(
                    "SELECT status, worker_ids, return_value "
                    "FROM django_tasks_database_dbtaskresult WHERE id = %s",
                    [task_id],
                ).fetchone()
            other = ({"w1", "w2"} - {first}).pop()
            assert (status, ran_by) == ("SUCCESSFUL", [first, other])
            assert json.loads(json.dumps(value)) == "finished"
        finally:
            for worker in workers.values():
                if worker.poll() is None:
                    worker.terminate()
                    worker.wait(timeout=30)
