"""`/healthz`: whether this app server can serve, for a load balancer or a probe.

200 when the database answers, and Redis too when ``REDIS_URL`` is set; 503
with the failing part named otherwise. Never cached, by us or by a proxy.

It is answered by a middleware near the top, before anything that reads the
database (the request's Wagtail site) or checks the Host header: a probe by
IP address over plain HTTP, with the database down, still gets its 503.
"""

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

logger = logging.getLogger(__name__)

# How long a probe waits for Redis before calling it down, in seconds.
REDIS_TIMEOUT = 2.0
_redis = None


def _redis_client():
    global _redis
    if _redis is None:
        import redis

        _redis = redis.Redis.from_url(
            settings.REDIS_URL,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
        )
    return _redis


def _database() -> None:
    # A probe wants the present state: no waiting for a database that is
    # restarting, as pages do (config/postgresql/).
    connection.connect_wait = 0
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        del connection.connect_wait


def _cache() -> None:
    _redis_client().ping()


@never_cache
def healthz(request):
    """Answer 200 with each part "ok", or 503 naming the part that failed."""
    checks = [("database", _database)]
    if settings.REDIS_URL:
        checks.append(("redis", _cache))
    status, parts = 200, {}
    for name, check in checks:
        try:
            check()
            parts[name] = "ok"
        except Exception as error:
            logger.warning("Health check: %s is down", name, exc_info=True)
            parts[name] = f"down: {type(error).__name__}"
            status = 503
    return JsonResponse(parts, status=status)


class HealthCheckMiddleware:
    """Answer ``/healthz`` before the rest of the stack (see above)."""

    path = "/healthz"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == self.path and request.method in ("GET", "HEAD"):
            return healthz(request)
        return self.get_response(request)
