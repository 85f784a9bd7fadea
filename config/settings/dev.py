"""Local development: DEBUG on, a fixed insecure key, localhost only."""

from .base import *  # noqa: F403
from .base import BASE_DIR, REDIS_URL, disk_caches, env_list

DEBUG = True
SECRET_KEY = SECRET_KEY or "django-insecure-dev-only-key-do-not-use-in-production"  # noqa: F405
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
# Serve static files straight from the app folders and node_modules.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# The readable sources before the build's minified copies (base.py): an edit
# to static/ shows on the next reload, without `npm run build`.
STATICFILES_DIRS = [
    BASE_DIR / "static",
    *(folder for folder in STATICFILES_DIRS if folder != BASE_DIR / "static"),  # noqa: F405
]
# Caches in files, as in production without Redis: `make run` serves pages
# from them, and `import_markdown` in another terminal purges the same ones,
# so readers see its changes on the next request. Apart from production's.
if not REDIS_URL:
    CACHES = disk_caches(BASE_DIR / ".cache" / "dev")
