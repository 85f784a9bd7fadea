"""The development settings on a throwaway site folder, for `make bench-import`.

`scripts/bench_import.py` gives each site its own folder (BENCH_SITE_DIR)
holding its SQLite database and media, so that a run never touches the
developer's own database or media.
"""

import os
from pathlib import Path

from config.settings.dev import *  # noqa: F403

BENCH_SITE_DIR = Path(os.environ["BENCH_SITE_DIR"])
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BENCH_SITE_DIR / "db.sqlite3",
    }
}
MEDIA_ROOT = BENCH_SITE_DIR / "media"
