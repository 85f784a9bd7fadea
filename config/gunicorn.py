"""gunicorn's settings for production: `gunicorn -c config/gunicorn.py config.wsgi`.

Each value can be changed from the environment, as a platform sets them:

- ``PORT`` / ``BIND``: where to listen (``127.0.0.1:$PORT``: only the proxy in
  front on this machine reaches it; ``BIND`` as is, ``0.0.0.0:8000`` say, for
  a proxy on another host, which ``FORWARDED_ALLOW_IPS`` must then name);
- ``WEB_CONCURRENCY``: worker processes (2 per core, plus one);
- ``GUNICORN_TIMEOUT``: seconds a request may take before its worker is
  replaced (KaTeX has its own, shorter, limit per formula);
- ``FORWARDED_ALLOW_IPS``: the proxies whose ``X-Forwarded-Proto`` is
  believed (the TLS proxy in front; 127.0.0.1 by default); Django reads the
  same variable for whose ``X-Forwarded-For`` names the reader
  (serving/addresses.py). No header sets ``SCRIPT_NAME`` or ``PATH_INFO``;
- ``WARM_ON_START``: ``0`` not to start ``manage.py warm_cache`` beside the
  workers when the server is ready (it renders what an empty cache lacks,
  niced as the task workers are, ``TASK_WORKER_NICENESS``; blog/warming.py).

Logs go to stdout and stderr as one JSON object per line, access log included.
"""

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

from config.settings.logs import JSON_FORMATTER

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# A worker is replaced after this many requests, so no slow leak can grow.
max_requests = 2000
max_requests_jitter = 200
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn would take SCRIPT_NAME and PATH_INFO from those proxies' headers:
# a page cached under a prefix a request made up would outlive its purges.
forwarder_headers = ""
# Requests larger than these are refused before Django sees them.
limit_request_line = 8190
limit_request_fields = 100

ROOT = Path(__file__).resolve().parents[1]


def _lower_priority():
    # As a task worker does (TASK_WORKER_NICENESS, background/workers.py).
    niceness = int(os.environ.get("TASK_WORKER_NICENESS", "0"))
    if niceness > 0:
        os.nice(niceness)


def when_ready(server):
    """Warm the render cache beside the workers, which serve meanwhile."""
    if os.environ.get("WARM_ON_START", "1") == "0":
        return
    # The settings the workers load (config/wsgi.py), unless told otherwise.
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.production", **os.environ}
    server.warmer = subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, str(ROOT / "manage.py"), "warm_cache", "--no-progress"],
        cwd=ROOT,
        env=env,
        preexec_fn=_lower_priority,  # noqa: PLW1509 - no threads in the master yet
    )


def on_exit(server):
    """Stop a warm-up still running: the next start makes it again."""
    warmer = getattr(server, "warmer", None)
    if warmer is not None and warmer.poll() is None:
        warmer.terminate()
        warmer.wait(timeout=10)


accesslog = "-"
errorlog = "-"
# The fields of each access record (gunicorn's atoms), kept apart by the JSON
# formatter below rather than joined in one line.
access_log_format = '%(h)s "%(r)s" %(s)s %(B)s %(M)sms "%(a)s"'
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": JSON_FORMATTER},
    "handlers": {
        "stdout": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "stream": "ext://sys.stdout",
        },
        "stderr": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "stream": "ext://sys.stderr",
        },
    },
    "root": {"handlers": ["stderr"], "level": "INFO"},
    "loggers": {
        "gunicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "gunicorn.access": {
            "handlers": ["stdout"],
            "level": "INFO",
            "propagate": False,
        },
    },
}
