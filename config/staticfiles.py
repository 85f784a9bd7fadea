"""The static files finder the settings name: each path found once, first copy first.

build/static/ holds the minified copies of static/'s CSS and scripts under
the same paths, and STATICFILES_DIRS lists it first (docs/front-end.md).
"""

import os

from django.contrib.staticfiles.finders import FileSystemFinder


class FirstCopyFinder(FileSystemFinder):
    """Django's finder over STATICFILES_DIRS, listing only the copy it finds.

    ``find()`` already returns the first folder's copy of a path; ``list()``,
    which collectstatic and WhiteNoise read, here skips the copies behind it,
    so collectstatic does not report each source the build replaced as a
    clash.
    """

    def list(self, ignore_patterns):
        """List each path of the folders once, from the first folder holding it."""
        listed = set()
        for path, storage in super().list(ignore_patterns):
            prefix = getattr(storage, "prefix", None)
            name = os.path.join(prefix, path) if prefix else path
            if name not in listed:
                listed.add(name)
                yield path, storage
