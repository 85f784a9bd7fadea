"""The test settings with media on disk, in the folder DRILL_MEDIA_ROOT names.

For processes that share one site's media (the backup drill): the test
settings keep media in memory, which each process would have empty.
"""

import os
from pathlib import Path

from config.settings.test import *  # noqa: F403
from config.settings.test import STORAGES

STORAGES = {
    **STORAGES,
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
}
MEDIA_ROOT = Path(os.environ["DRILL_MEDIA_ROOT"])
