"""gunicorn for `make bench`: start it on a free loopback port, time it, stop it.

The server runs the production settings (DEBUG off, WhiteNoise serving the
collected static files) with the environment the caller gives: the bench
database, and PAGE_CACHE_SECONDS=0 or not. Its access log records each
request's status and duration in microseconds, which is how server-side
render time is measured.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from scripts.support.servers import free_port, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
# Status, request time (microseconds) and request line: what the timing reads back.
ACCESS_LOG_FORMAT = "%(s)s %(D)s %(r)s"


class Gunicorn:
    """gunicorn serving config.wsgi on 127.0.0.1 with sync workers; a context manager."""

    # The gunicorn that runs, and the WSGI application it serves.
    executable: Path = GUNICORN
    application = "config.wsgi"

    def __init__(
        self,
        env: dict[str, str],
        folder: Path,
        *,
        name: str,
        workers: int,
        startup_timeout: float = 60,
    ):
        self.env = env
        self.folder = folder
        self.name = name
        self.workers = workers
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.access_log = folder / f"{name}-access.log"
        self.error_log = folder / f"{name}-server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Gunicorn:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.access_log.write_text("")
        self.port = free_port()
        with self.error_log.open("w") as log:
            self.process = subprocess.Popen(  # noqa: S603
                [
                    str(self.executable),
                    self.application,
                    f"--bind=127.0.0.1:{self.port}",
                    f"--workers={self.workers}",
                    f"--access-logfile={self.access_log}",
                    f"--access-logformat={ACCESS_LOG_FORMAT}",
                    "--timeout=120",
                    "--graceful-timeout=10",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            self.wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def wait_until_ready(self) -> None:
        # Every worker up, so the first timed requests do not wait for one.
        wait_until_serving(
            self.process,
            self.url + "/",
            self.startup_timeout,
            self.log_tail,
            ready=lambda: len(self.worker_pids()) == self.workers,
        )

    def log_tail(self) -> str:
        if not self.error_log.exists():
            return ""
        return self.error_log.read_text(errors="replace")[-4000:]

    def worker_pids(self) -> list[int]:
        """Return the pids of the master's children (the workers), from /proc."""
        if self.process is None:
            return []
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # The command may hold spaces and parentheses: fields follow the last ")".
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == self.process.pid:
                pids.append(int(entry.name))
        return sorted(pids)

    def worker_rss_mb(self) -> list[float]:
        """Return each worker's resident memory (VmRSS) in MiB."""
        sizes = []
        for pid in self.worker_pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(round(int(line.split()[1]) / 1024, 1))
        return sizes

    def access_log_offset(self) -> int:
        return self.access_log.stat().st_size

    def durations_ms(self, offset: int, target: str) -> list[float]:
        """Return the durations (ms) of the 200 responses to ``target`` logged after
        ``offset``; ``target`` is a path with its query string, as requested."""
        durations = []
        with self.access_log.open() as log:
            log.seek(offset)
            for line in log:
                status, micros, request = line.rstrip("\n").split(" ", 2)
                # The request line: method, target, protocol.
                if status == "200" and request.split(" ")[1] == target:
                    durations.append(int(micros) / 1000)
        return durations

    def stop(self) -> None:
        """Stop the master and, should any outlive it, its workers."""
        if self.process is None:
            return
        workers = self.worker_pids()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in workers:
            # Only a worker that is still this gunicorn (the pid not reused).
            try:
                if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
        self.process = None
