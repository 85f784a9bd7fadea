"""The production settings with a throwaway database and static root, for `make audit`.

Lighthouse should measure what readers get: hashed, compressed static files
served by WhiteNoise and DEBUG off. `scripts/audit.py` sets the environment the
production settings require (SECRET_KEY, DATABASE_URL, ALLOWED_HOSTS) and turns
the HTTPS redirect off, since the audit talks plain HTTP to 127.0.0.1.
"""

import os
from pathlib import Path

from config.settings.production import *  # noqa: F403

DEMO_SERVER_DIR = Path(os.environ["DEMO_SERVER_DIR"])
# DATABASE_URL must be set for the production settings to load; the audit's
# database is this throwaway file whatever it says.
# Its connection options are the ones every SQLite site has (base settings:
# WAL, writes that wait their turn), as a task worker writes beside the server.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DEMO_SERVER_DIR / "db.sqlite3",
        "OPTIONS": {
            **SQLITE_OPTIONS,  # noqa: F405
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;",
        },
    }
}
STATIC_ROOT = DEMO_SERVER_DIR / "static"
# Pages and renders cached by an earlier run are of another database: start empty.
for alias, folder in (("default", "pages"), ("renders", "renders")):
    if CACHES[alias]["BACKEND"] == "config.cache.DiskCache":  # noqa: F405
        CACHES[alias]["LOCATION"] = str(DEMO_SERVER_DIR / folder)  # noqa: F405
# Served by the site itself (serving/media.py), as under `make serve`.
MEDIA_ROOT = DEMO_SERVER_DIR / "media"
