"""Settings shared by every environment.

Nothing here is secret or machine-specific: what differs between machines is
read from the environment (see `.env.example`).
"""

import datetime
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE

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
    "vault",
    "search",
    "pagecache",
    "comments",
    "background",
    "serving",
    "django_tasks_db",
    "django_comments_xtd",
    "django_comments",
    "wagtail.contrib.forms",
    "wagtail.contrib.frontend_cache",
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
    "csp",
    "django.contrib.admin",
    "django.contrib.auth",
    "axes",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.sitemaps",
    # Comments name their site (django-contrib-comments); one site, SITE_ID.
    "django.contrib.sites",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy (CONTENT_SECURITY_POLICY below; serving/security.py)
    # and Permissions-Policy on every response, cached pages and files too.
    "serving.security.SitePolicyMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # /healthz, before anything that needs the database or a known host.
    "serving.health.HealthCheckMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Uploads from MEDIA_ROOT when they are on this machine's disk, not object
    # storage (serving/media.py).
    "serving.media.MediaFilesMiddleware",
    # Anonymous readers get pages from the page cache (pagecache/cache.py) before
    # anything below runs; on a miss it stores what compression and ConditionalGet
    # made.
    "pagecache.middleware.PageCacheMiddleware",
    # A public page renders afresh for at most RENDER_BUDGET_SECONDS; past it,
    # formulas and code show their source, and the page is not cached
    # (serving/budget.py).
    "serving.budget.RenderBudgetMiddleware",
    # 304 to a client whose copy is still current, by the tag compression gave.
    "django.middleware.http.ConditionalGetMiddleware",
    # Brotli for public pages, Django's gzip for the rest, and an ETag on each
    # (serving/compression.py).
    "serving.compression.CompressionMiddleware",
    # The admin's own inline scripts, allowed by hash (serving/security.py).
    "serving.security.AdminInlineScriptsMiddleware",
    # Wagtail's autosave refusals (a form not valid yet) as 200, not a console
    # error per keystroke; its script reads the JSON body (serving/autosave.py).
    "serving.autosave.AutosaveRefusalMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Public pages in LANGUAGE_CODE whatever Accept-Language says, so the page
    # cache needs no copy per language; the admin follows it (serving/locale.py).
    "serving.locale.PublicLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # The request's Wagtail site, kept between requests (pagecache/sites.py); below
    # CommonMiddleware, which turns away hosts not in ALLOWED_HOSTS.
    "pagecache.sites.SiteMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
    # Last, as django-axes asks: it answers a locked-out login.
    "axes.middleware.AxesMiddleware",
]

# Logins (the Wagtail admin's and Django's) are refused for 15 minutes after 5
# failures of one username from one reader's address; a success clears the count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Readers' comments (comments/): threads from django-comments-xtd on
# django-contrib-comments, held for a moderator, never confirmed by mail.
SITE_ID = 1
COMMENTS_APP = "django_comments_xtd"
COMMENTS_XTD_MAX_THREAD_LEVEL = 2  # a comment, a reply, a reply to that
COMMENTS_XTD_CONFIRM_EMAIL = False
COMMENT_MAX_LENGTH = 3000
# The form's timestamp lives in cached pages; an older one asks to send again.
COMMENTS_TIMEOUT = 7 * 24 * 60 * 60
# Comments one address may send in COMMENTS_RATE_SECONDS.
COMMENTS_RATE = 5
COMMENTS_RATE_SECONDS = 10 * 60

AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = datetime.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "login_locked.html"
# The reader's address, for logins, page passwords and comments alike: the
# peer's, or behind one of these proxies what X-Forwarded-For says it
# forwarded (serving/addresses.py). The same variable tells gunicorn whose
# X-Forwarded-Proto to believe (config/gunicorn.py). Addresses or networks,
# comma-separated; empty here: no header a client sends is believed.
TRUSTED_PROXIES = env_list("FORWARDED_ALLOW_IPS")
AXES_CLIENT_IP_CALLABLE = "serving.addresses.reader_address"

# Scripts only from this site's files: no page has an inline script, and a
# post's sandboxed figures get their scripts' hashes added (serving/security.py).
# Styles may be inline: KaTeX and Pygments position and colour with them.
# Images, video and embedded frames may come from elsewhere over HTTPS (media
# on object storage, an author's video embed). No site may frame a page.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:", "https:"],
        "media-src": [SELF, "https:"],
        "font-src": [SELF, "data:"],
        "frame-src": [SELF, "https:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Features no page of a blog uses, denied to it and to what it embeds.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
}

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
# The web server and a task worker write at once: readers go on while one
# writes (WAL), a transaction takes the write lock when it starts rather than
# fail with "database is locked" when it cannot upgrade a read, and waits up
# to 20 s for it.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, waiting out a database restart (config/postgresql/).
    DATABASES["default"]["ENGINE"] = "config.postgresql"
    # A server that drops packets fails a connect after this, not minutes later.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
# Seconds a new database connection waits for a server that is restarting.
DATABASE_CONNECT_WAIT = float(os.environ.get("DATABASE_CONNECT_WAIT", "5"))

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
# Our catalog fills the gaps of Wagtail's zh_Hans one (locale/zh_Hans).
LOCALE_PATHS = [BASE_DIR / "locale"]

STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_URL = "/static/"
STATICFILES_DIRS = [
    # What `npm run build` (make install) makes, found before the sources: the
    # minified copies of static/'s CSS and scripts, and the admin's bundle
    # from static_src/ (docs/front-end.md).
    BASE_DIR / "build" / "static",
    BASE_DIR / "static",
    # KaTeX's CSS and fonts, from the same npm package the server renders with.
    ("katex", BASE_DIR / "node_modules" / "katex" / "dist"),
]
STATICFILES_FINDERS = [
    # Django's FileSystemFinder, listing a path the build replaced only once.
    "config.staticfiles.FirstCopyFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage",
    },
}
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")
MEDIA_URL = "/media/"
# A CDN or caching proxy in front, purged with the page cache (pagecache/cache.py):
# FRONTEND_CACHE_PURGE_URL is where PURGE requests go (Varnish, nginx); other
# CDNs (CloudFront, Cloudflare) are configured here as Wagtail documents.
if os.environ.get("FRONTEND_CACHE_PURGE_URL"):
    WAGTAILFRONTENDCACHE = {
        "proxy": {
            "BACKEND": "wagtail.contrib.frontend_cache.backends.HTTPBackend",
            "LOCATION": os.environ["FRONTEND_CACHE_PURGE_URL"],
        }
    }

# Media (uploaded images, their renditions, documents) on S3-compatible object
# storage when a bucket is named, so that every app server sees every upload
# (django-storages; credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY).
# URLs are unsigned: cached pages must not carry links that expire, so the
# bucket (or the CDN in front, AWS_S3_CUSTOM_DOMAIN) serves its objects publicly.
AWS_STORAGE_BUCKET_NAME = os.environ.get("AWS_STORAGE_BUCKET_NAME", "")
if AWS_STORAGE_BUCKET_NAME:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": os.environ.get("AWS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("AWS_S3_REGION_NAME") or None,
            "custom_domain": os.environ.get("AWS_S3_CUSTOM_DOMAIN") or None,
            "querystring_auth": False,
            "file_overwrite": False,
        },
    }

# Caches: the page cache and the render cache (KaTeX/Pygments output by content
# hash). Redis when REDIS_URL is set, so every process shares them.
REDIS_URL = os.environ.get("REDIS_URL", "")
# Render cache entries expire after this many seconds unless set for less (a
# body is kept a week), and none larger than this many bytes is kept: a few
# huge renders must not fill the cache for good (docs/deployment.md).
RENDER_CACHE_SECONDS = int(os.environ.get("RENDER_CACHE_SECONDS", str(30 * 86400)))
RENDER_CACHE_MAX_ENTRY_BYTES = int(
    os.environ.get("RENDER_CACHE_MAX_ENTRY_BYTES", "16000000")
)
if REDIS_URL:
    # Redis down or slow to answer is a miss after a second, not an error
    # (config/cache.py): the site serves on, rendering afresh.
    REDIS_OPTIONS = {"socket_connect_timeout": 1, "socket_timeout": 1}
    CACHES = {
        "default": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "site",
            "OPTIONS": REDIS_OPTIONS,
        },
        "renders": {
            "BACKEND": "config.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "render",
            "TIMEOUT": RENDER_CACHE_SECONDS,
            "OPTIONS": REDIS_OPTIONS,
        },
    }
else:
    # Local memory here; development and production share files instead
    # (disk_caches below), so that a command's purge reaches the server.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
        "renders": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "renders",
            "TIMEOUT": RENDER_CACHE_SECONDS,
            "OPTIONS": {"MAX_ENTRIES": 20000},
        },
    }


def disk_caches(folder: Path) -> dict:
    """Return both caches as diskcache folders under ``folder`` (no Redis).

    Every process of the machine shares them: a server, its workers and a
    management command run beside it (``import_markdown`` purging what it
    changed). PAGE_CACHE_DIR and RENDER_CACHE_DIR name other folders.
    """
    return {
        "default": {
            "BACKEND": "config.cache.DiskCache",
            "LOCATION": os.environ.get("PAGE_CACHE_DIR", str(folder / "pages")),
            "OPTIONS": {"size_limit": 2**30},
        },
        "renders": {
            "BACKEND": "config.cache.DiskCache",
            "LOCATION": os.environ.get("RENDER_CACHE_DIR", str(folder / "renders")),
            "TIMEOUT": RENDER_CACHE_SECONDS,
            "OPTIONS": {"size_limit": 2**30},
        },
    }


# The full-page cache for anonymous readers (pagecache/cache.py), purged on
# publish (pagecache/purge.py): how long a page is kept, in seconds; 0 turns
# it off. Query strings with other parameters than these are not cached.
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", "86400"))
# The release being served (a commit id, say): a new one starts with an empty
# page cache. Unset, it is a digest of the code and templates (pagecache/release.py).
RELEASE = os.environ.get("RELEASE", "")
# The folders whose code, templates and static sources that digest reads.
RELEASE_SOURCE_FOLDERS = [
    "blog",
    "comments",
    "rendering",
    "pagecache",
    "search",
    "serving",
    "config",
    "templates",
    "static",
]
PAGE_CACHE_ALIAS = "default"
# How long a path's token (and the site's) lives once minted, in seconds: a
# page kept under it is served until then at most. A token is minted only when
# something is kept for its path, so requests for made-up paths mint none.
PAGE_CACHE_TOKEN_SECONDS = int(
    os.environ.get("PAGE_CACHE_TOKEN_SECONDS", str(30 * 24 * 60 * 60))
)
# How often each process asks the database whether a purge made while the
# cache was unreachable is still to be made (pagecache/cache.py): the longest,
# in seconds, a server may serve a page changed during a cache outage once the
# cache answers again with its old entries. 0 asks before each read of the cache.
PAGE_CACHE_PURGE_CHECK_SECONDS = float(
    os.environ.get("PAGE_CACHE_PURGE_CHECK_SECONDS", "1")
)
# The seconds of fresh rendering (KaTeX, Pygments) a reader's request may do
# when the render cache lacks a page's parts: past it, what is left shows its
# source, and the page is not cached until it is whole (serving/budget.py).
# Well under the worker's timeout (GUNICORN_TIMEOUT); 0 lifts the bound.
RENDER_BUDGET_SECONDS = float(os.environ.get("RENDER_BUDGET_SECONDS", "5"))
# Bounds on one formula (rendering/math.py): the bytes of KaTeX's output and
# the seconds it may take. A few hundred characters of \\def macros can expand
# to megabytes and seconds; over a bound a formula is an error, as bad LaTeX is.
MATH_MAX_OUTPUT_BYTES = int(os.environ.get("MATH_MAX_OUTPUT_BYTES", "200000"))
MATH_TIMEOUT_SECONDS = float(os.environ.get("MATH_TIMEOUT_SECONDS", "1"))
# Background work (renditions, rendering bodies and feed entries, Wagtail's
# reference index) is queued in the database and done by `manage.py
# db_worker` processes (background/, docs/deployment.md). TASKS_BACKEND
# names another django-tasks backend: "django_tasks.backends.immediate.
# ImmediateBackend" runs each task in the process that queued it, once its
# transaction commits (no worker needed, every save waits for its work).
TASKS = {
    "default": {
        "BACKEND": os.environ.get("TASKS_BACKEND", "django_tasks_db.DatabaseBackend")
    }
}
# A task worker that has not said it is alive for this long counts as stopped:
# the tasks it was running go back in the queue (background/workers.py).
TASK_WORKER_LOST_SECONDS = float(os.environ.get("TASK_WORKER_LOST_SECONDS", "30"))
# Niceness a task worker adds to itself (background/workers.py). 0, as started:
# a niced worker gets next to no processor while the web processes are busy,
# so the pages readers ask for stay unfinished, and uncached, as long as the
# load lasts (docs/performance.md, the soak).
TASK_WORKER_NICENESS = int(os.environ.get("TASK_WORKER_NICENESS", "0"))
# Seconds the heavy work an editor's save or publish queues (the body's render
# and check, the search index) waits before a worker takes it, so that the
# admin's next page is served first (background/queue.py, after_the_editor).
EDITOR_WORK_DELAY_SECONDS = float(os.environ.get("EDITOR_WORK_DELAY_SECONDS", "1"))
# Counts a listing shows (per section, tag, year), kept until its page is purged.
LISTING_CACHE_SECONDS = int(os.environ.get("LISTING_CACHE_SECONDS", "604800"))
PAGE_CACHE_EXCLUDED_PATHS = ["/admin/", "/django-admin/", "/documents/", "/comments/"]
# The only query parameters a cached page may be keyed by; which of them a page
# reads, and which values it is cached for, its view declares (pagecache/query.py).
PAGE_CACHE_QUERY_PARAMS = ["format", "page", "q"]
# Search results are kept at most this long: every query is a page of its own.
PAGE_CACHE_SEARCH_SECONDS = int(os.environ.get("PAGE_CACHE_SEARCH_SECONDS", "300"))

# Limits on one Markdown file `import_markdown` reads (docs/markdown-format.md):
# a file larger, or with lists and quotes nested deeper, fails alone with a
# message naming the limit; a post with more formulas is imported with a
# warning, only that many of them checked and repaired.
VAULT_MAX_POST_BYTES = int(os.environ.get("VAULT_MAX_POST_BYTES", "2000000"))
VAULT_MAX_POST_FORMULAS = int(os.environ.get("VAULT_MAX_POST_FORMULAS", "5000"))
VAULT_MAX_NESTING = int(os.environ.get("VAULT_MAX_NESTING", "40"))
# The seconds a Markdown paste in the admin (vault/paste.py) may spend checking
# its formulas, well under the worker's timeout; past it the paste is refused.
VAULT_PASTE_MATH_SECONDS = float(os.environ.get("VAULT_PASTE_MATH_SECONDS", "10"))

SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")

# Wagtail
WAGTAIL_SITE_NAME = os.environ.get("SITE_NAME", "刘芷溢的博客")
# A CJK font for social preview images (blog/social.py); unset, the usual
# system paths are tried (Debian: apt-get install fonts-noto-cjk).
SOCIAL_IMAGE_FONT = os.environ.get("SOCIAL_IMAGE_FONT", "")
WAGTAILADMIN_BASE_URL = os.environ.get("WAGTAILADMIN_BASE_URL", "http://127.0.0.1:8000")
WAGTAIL_ALLOW_UNICODE_SLUGS = True
# Uploading an image already in the library reuses it (blog/image_forms.py).
WAGTAILIMAGES_IMAGE_FORM_BASE = "blog.image_forms.ReusingImageForm"
# The admin asks releases.wagtail.org for new versions from the editor's
# browser; the site's policy allows no such call, and it tells a third party
# who edits when. Upgrades come through requirements.txt.
WAGTAIL_ENABLE_UPDATE_CHECK = False
# Nor avatars from Gravatar (an editor's e-mail hash sent to a third party).
WAGTAIL_GRAVATAR_PROVIDER_URL = None
WAGTAIL_I18N_ENABLED = False
# Search (search/tokens.py): posts are indexed as text already cut into words
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
# Uploads: checked by content as well as by name. An SVG may carry scripts and
# Wagtail does not sanitise it: pages show it only as <img> (where no script
# runs), never rasterised (blog/templatetags/picture_tags.py), and /media/
# sends it as an attachment under a policy that runs nothing (serving/media.py).
WAGTAILIMAGES_EXTENSIONS = ["avif", "gif", "jpg", "jpeg", "png", "svg", "webp"]
WAGTAILIMAGES_MAX_UPLOAD_SIZE = int(
    os.environ.get("MAX_IMAGE_UPLOAD_BYTES", str(10 * 1024 * 1024))
)
WAGTAILIMAGES_MAX_IMAGE_PIXELS = 50_000_000
# libavif's speed for AVIF renditions, 0 (slowest, smallest) to 10: 8 takes a
# third of the default 6's time for about 5 % more bytes (blog/avif.py).
IMAGE_AVIF_SPEED = int(os.environ.get("IMAGE_AVIF_SPEED", "8"))
# Documents (downloads linked from a post): PDF only, by name and by content
# (blog/document_forms.py), sent as attachments: none is shown inline, and
# each is sent by Wagtail's view (never a redirect to the bucket), which adds
# Content-Disposition, nosniff and a policy that runs nothing.
WAGTAILDOCS_EXTENSIONS = ["pdf"]
WAGTAILDOCS_DOCUMENT_FORM_BASE = "blog.document_forms.PdfDocumentForm"
WAGTAILDOCS_INLINE_CONTENT_TYPES = []
WAGTAILDOCS_SERVE_METHOD = "serve_view"
# A long post is thousands of StreamField form fields; Django's default of
# 1,000 would refuse to save it.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 50_000
WAGTAILEMBEDS_RESPONSIVE_HTML = True
TAGGIT_CASE_INSENSITIVE = True
