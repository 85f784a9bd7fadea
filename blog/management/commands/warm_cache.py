"""Render every page body, feed entry and image rendition ahead of readers.

Run it after a deploy to an empty cache or a flush of Redis; gunicorn starts
it beside its workers (config/gunicorn.py). Readers are served meanwhile:
a page whose parts are not rendered yet shows them as source for a while
(serving/budget.py).
"""

import sys
import time

from django.core.management.base import BaseCommand
from tqdm import tqdm

from blog.warming import warm_site


class Command(BaseCommand):
    help = "Render every page body, feed entry and image rendition ahead of readers."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-progress",
            action="store_true",
            help="No progress bar, even on a terminal.",
        )

    def handle(self, *args, **options):
        start = time.monotonic()
        bar = None

        def progress(done: int, total: int, label: str) -> None:
            nonlocal bar
            if bar is None:
                bar = tqdm(total=total, file=sys.stderr, unit="item", leave=False)
            bar.set_postfix_str(label[-40:], refresh=False)
            bar.update(done - bar.n)

        shown = not options["no_progress"] and sys.stderr.isatty()
        try:
            warmed = warm_site(progress if shown else None)
        finally:
            if bar is not None:
                bar.close()
        self.stdout.write(
            f"Warmed {warmed} pages and images in {time.monotonic() - start:.1f} s."
        )
