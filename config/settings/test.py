"""Tests: fast hashing, plain static storage, local-memory caches."""

import os
from urllib.parse import urlsplit

from .base import *  # noqa: F403

DEBUG = False
SECRET_KEY = "test-only-key"  # noqa: S105
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WAGTAILADMIN_BASE_URL = "http://testserver"
# Off, so a test sees what it just changed; tests of the page cache turn it on.
PAGE_CACHE_SECONDS = 0
LISTING_CACHE_SECONDS = 0
# Only after a failed purge of the test's own: an unprompted check would add a
# query to whichever request came a second after the last, and query counts
# would vary. Tests of the purges that outlive a process set a number.
PAGE_CACHE_PURGE_CHECK_SECONDS = None
# Off, so a slow test machine never shows a formula as source; the tests of
# the budget set one (tests/blog/test_cold_start.py).
RENDER_BUDGET_SECONDS = 0
# Each task runs as it is queued, once its transaction commits: a test sees
# its work done. The tests of the queue itself use the database backend.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Parallel test workers (pytest-xdist) sharing one Redis get a database each:
# a test that clears a cache (Redis FLUSHDB) must not empty another worker's,
# or that worker's query counts change under it.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if REDIS_URL and _worker.startswith("gw") and _worker[2:].isdigit():
    _db = 1 + int(_worker[2:]) % 15
    for _cache in CACHES.values():
        _cache["LOCATION"] = urlsplit(REDIS_URL)._replace(path=f"/{_db}").geturl()
