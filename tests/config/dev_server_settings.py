"""The development settings, on a throwaway SQLite database that skips fsyncs.

Everything else, the caches above all, is `config.settings.dev`'s.
"""

from config.settings.dev import *  # noqa: F403
from config.settings.dev import DATABASES

DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = (
    "PRAGMA synchronous=OFF;"
)
