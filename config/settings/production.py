"""Production: every secret and host comes from the environment; fail fast."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .logs import JSON_FORMATTER


def required(name: str) -> str:
    """Return an environment variable, or refuse to start without it."""
    value = os.environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"Set the {name} environment variable.")
    return value


DEBUG = False
SECRET_KEY = required("SECRET_KEY")
required("DATABASE_URL")
ALLOWED_HOSTS = [
    host.strip() for host in required("ALLOWED_HOSTS").split(",") if host.strip()
]
# Several gunicorn workers must see one page cache, or a purge made by the one
# that served the editor would miss the others; and rendered math and code
# must be rendered once, not once per worker (nor again after a restart).
# Without Redis, both caches are diskcache directories (SQLite-indexed files)
# that every process of this machine shares.
if not REDIS_URL:  # noqa: F405
    CACHES = disk_caches(BASE_DIR / ".cache")  # noqa: F405
CSRF_TRUSTED_ORIGINS = [
    origin for origin in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if origin
]

# The proxy in front, on this machine unless told otherwise: gunicorn listens
# on loopback by default (config/gunicorn.py) and believes its X-Forwarded-Proto
# (the request's scheme, so no SECURE_PROXY_SSL_HEADER: Django would believe it
# from anyone); its X-Forwarded-For names the reader (serving/addresses.py).
TRUSTED_PROXIES = env_list("FORWARDED_ALLOW_IPS", "127.0.0.1")  # noqa: F405
SECURE_SSL_REDIRECT = os.environ.get("SECURE_SSL_REDIRECT", "true").lower() == "true"
# A load balancer probes each server directly, over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"

# One JSON object per line on stdout, for whatever collects the logs.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": JSON_FORMATTER},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
