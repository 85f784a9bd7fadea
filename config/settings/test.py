"""Tests: fast hashing, plain static storage, local-memory caches."""

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
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
