"""puput's standalone setup, run as in production: DEBUG off, no page cache.

The database is an SQLite file named by PUPUT_DATABASE; SECRET_KEY comes from
the environment, as the bench's own servers get theirs.
"""

import os
from pathlib import Path

from puput import PUPUT_APPS

SECRET_KEY = os.environ["SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    *PUPUT_APPS,
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]
ROOT_URLCONF = "scripts.bench.puput_site.urls"
WSGI_APPLICATION = "scripts.bench.puput_site.wsgi.application"
# With DEBUG off, Django wraps the app directories loader in its cached loader.
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": Path(os.environ["PUPUT_DATABASE"]),
        # Connections kept between requests, as our production settings do.
        "CONN_MAX_AGE": 60,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"

STATIC_URL = "/static/"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ["PUPUT_DATABASE"]).parent / "media"

WAGTAIL_SITE_NAME = "Puput blog"
WAGTAILADMIN_BASE_URL = "http://127.0.0.1"
