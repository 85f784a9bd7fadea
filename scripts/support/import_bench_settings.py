"""The development settings on a throwaway site folder, for `make bench-import`.

`scripts/bench_import.py` gives each site its own folder (BENCH_SITE_DIR)
holding its SQLite database, media and caches, so that a run never touches
the developer's own, and no site finds another's renders or renditions in a
cache (a rendition cached for image 1 of one site is not image 1's of the next).
"""

import os
from pathlib import Path

from config.settings.dev import *  # noqa: F403
from config.settings.dev import DATABASES, disk_caches

BENCH_SITE_DIR = Path(os.environ["BENCH_SITE_DIR"])
# The development settings' SQLite options (WAL: an import beside its workers).
DATABASES = {
    "default": {
        **DATABASES["default"],
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BENCH_SITE_DIR / "db.sqlite3",
    }
}
MEDIA_ROOT = BENCH_SITE_DIR / "media"
CACHES = disk_caches(BENCH_SITE_DIR / "cache")
