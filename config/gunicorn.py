"""gunicorn's settings for production: `gunicorn -c config/gunicorn.py config.wsgi`.

Each value can be changed from the environment, as a platform sets them:

- ``PORT`` / ``BIND``: where to listen (``0.0.0.0:$PORT``, or ``BIND`` as is);
- ``WEB_CONCURRENCY``: worker processes (2 per core, plus one);
- ``GUNICORN_TIMEOUT``: seconds a request may take before its worker is
  replaced (KaTeX has its own, shorter, limit per formula);
- ``FORWARDED_ALLOW_IPS``: the proxies whose ``X-Forwarded-*`` headers are
  believed (the TLS proxy in front; 127.0.0.1 by default).

Logs go to stdout and stderr as one JSON object per line, access log included.
"""

import multiprocessing
import os

from config.logs import JSON_FORMATTER

bind = os.environ.get("BIND") or f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# A worker is replaced after this many requests, so no slow leak can grow.
max_requests = 2000
max_requests_jitter = 200
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Requests larger than these are refused before Django sees them.
limit_request_line = 8190
limit_request_fields = 100

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
