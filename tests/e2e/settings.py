"""The test settings for the demo server the browser tests drive.

The server runs in a process of its own (`scripts/support/servers.py`), so its
database and media must live on disk: a fresh SQLite file and a media folder,
both in the folder `DEMO_SERVER_DIR` names. Static files come straight from the finders
(`WHITENOISE_USE_FINDERS` in the test settings), so nothing is collected.
"""

import os
from pathlib import Path

from config.settings.test import *  # noqa: F403
from config.settings.test import STORAGES

DEMO_SERVER_DIR = Path(os.environ["DEMO_SERVER_DIR"])

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DEMO_SERVER_DIR / "db.sqlite3",
        "OPTIONS": {
            # A throwaway database: skip the fsyncs that make migrating slow.
            "init_command": "PRAGMA synchronous=OFF;",
            # The server's threads write at once (an autosave beside a
            # publish): take the write lock when a transaction starts, and
            # wait for it, instead of failing with "database is locked" when
            # a transaction that read first cannot upgrade.
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        },
    }
}
STORAGES = {
    **STORAGES,
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
}
# Served by the site itself (serving/media.py), as under `make serve`.
MEDIA_ROOT = DEMO_SERVER_DIR / "media"
