"""Settings shared by every environment.

Nothing here is secret or machine-specific: what differs between machines is
read from the environment (see `.env.example`).
"""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_list(name: str, default: str = "") -> list[str]:
    """Return a comma-separated environment variable as a list."""
    return [
        item.strip()
        for item in os.environ.get(name, default).split(",")
        if item.strip()
    ]


INSTALLED_APPS = [
    "blog",
    "series",
    "wagtail.contrib.forms",
    "wagtail.contrib.redirects",
    "wagtail.contrib.routable_page",
    "wagtail.contrib.sitemaps",
    "wagtail.contrib.table_block",
    "wagtail.embeds",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.sitemaps",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Anonymous readers get pages from the page cache (blog/pagecache.py) before
    # anything below runs; on a miss it stores what compression and ConditionalGet
    # made.
    "blog.pagecache.PageCacheMiddleware",
    # 304 to a client whose copy is still current, by the tag compression gave.
    "django.middleware.http.ConditionalGetMiddleware",
    # Brotli for public pages, Django's gzip for the rest, and an ETag on each
    # (blog/compression.py).
    "blog.compression.CompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # The request's Wagtail site, kept between requests (blog/sites.py); below
    # CommonMiddleware, which turns away hosts not in ALLOWED_HOSTS.
    "blog.sites.SiteMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "blog.context_processors.site_navigation",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Simplified Chinese first: the admin, dates (2026年9月18日) and the site chrome.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True
WAGTAILADMIN_PERMITTED_LANGUAGES = LANGUAGES

STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_URL = "/static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # KaTeX's CSS and fonts, from the same npm package the server renders with.
    ("katex", BASE_DIR / "node_modules" / "katex" / "dist"),
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage",
    },
}
MEDIA_ROOT = BASE_DIR / "media"
MEDIA_URL = "/media/"

# Caches: the page cache and the render cache (KaTeX/Pygments output by content
# hash). Redis when REDIS_URL is set, so every process shares them.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "site",
        },
        "renders": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "render",
            "TIMEOUT": None,
        },
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
        "renders": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "renders",
            "TIMEOUT": None,
            "OPTIONS": {"MAX_ENTRIES": 20000},
        },
    }

# The full-page cache for anonymous readers (blog/pagecache.py), purged on
# publish (blog/invalidation.py): how long a page is kept, in seconds; 0 turns
# it off. Query strings with other parameters than these are not cached.
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", "86400"))
PAGE_CACHE_ALIAS = "default"
# Counts a listing shows (per section, tag, year), kept until its page is purged.
LISTING_CACHE_SECONDS = int(os.environ.get("LISTING_CACHE_SECONDS", "604800"))
PAGE_CACHE_EXCLUDED_PATHS = ["/admin/", "/django-admin/", "/documents/"]
PAGE_CACHE_QUERY_PARAMS = ["page", "q"]

SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")

# Wagtail
WAGTAIL_SITE_NAME = os.environ.get("SITE_NAME", "刘芷溢的博客")
# A CJK font for social preview images (blog/social.py); unset, the usual
# system paths are tried (Debian: apt-get install fonts-noto-cjk).
SOCIAL_IMAGE_FONT = os.environ.get("SOCIAL_IMAGE_FONT", "")
WAGTAILADMIN_BASE_URL = os.environ.get("WAGTAILADMIN_BASE_URL", "http://127.0.0.1:8000")
WAGTAIL_ALLOW_UNICODE_SLUGS = True
WAGTAIL_I18N_ENABLED = False
# Search (blog/search.py): posts are indexed as text already cut into words
# (jieba for Chinese, Snowball stems for English, split code identifiers), so
# PostgreSQL must not stem again: the "simple" configuration only lower-cases.
# SQLite's FTS5 (unicode61) splits the same text on the same spaces.
WAGTAILSEARCH_BACKENDS = {
    "default": {
        "BACKEND": "wagtail.search.backends.database",
        "SEARCH_CONFIG": "simple",
    }
}
WAGTAILIMAGES_FORMAT_CONVERSIONS = {"bmp": "png", "gif": "gif"}
WAGTAILEMBEDS_RESPONSIVE_HTML = True
TAGGIT_CASE_INSENSITIVE = True
