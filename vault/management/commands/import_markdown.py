"""Import Markdown files (an Obsidian/Quartz/Hexo vault) into the page tree.

The format is docs/markdown-format.md; the work is done by `vault.importer`.
"""

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError
from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm
from wagtail.models import Page, Site

from background.queue import Progress, follow, is_queued
from blog.models import HomePage, SeriesPage
from vault.importer import Importer


class Command(BaseCommand):
    help = (
        "Import a Markdown file or a folder tree: folders become series, files "
        "posts. Re-importing updates the same pages; unchanged files are skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a Markdown file or a folder of them")
        parser.add_argument(
            "--parent",
            default="/",
            help="URL path of the page to import under, e.g. /notes/ "
            "(default: the home page)",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="do everything, report, then roll back: nothing is written",
        )
        parser.add_argument(
            "--draft", action="store_true", help="save pages unpublished (as drafts)"
        )
        parser.add_argument(
            "--exclude",
            action="append",
            default=[],
            metavar="GLOB",
            help="skip paths (relative to PATH) matching GLOB, e.g. 'drafts/*'; "
            "repeatable",
        )
        parser.add_argument(
            "--old-url-prefix",
            default="",
            help="URL path PATH was served at on the old site, for redirects "
            "(default: the site root)",
        )
        parser.add_argument(
            "--breaks",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="a single newline inside a paragraph is a line break, as in "
            "Obsidian and MkDocs' nl2br (default: read from .obsidian/app.json "
            "or mkdocs.yml; off for other vaults)",
        )
        parser.add_argument(
            "--fetch-images",
            action="store_true",
            help="download remote images (![](https://…)) into the media library; "
            "without it they are shown from their URL",
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="after the import, follow the rendering it queued (math, code, "
            "image sizes) until the task workers have done it",
        )
        progress = parser.add_mutually_exclusive_group()
        progress.add_argument(
            "--progress",
            action="store_true",
            help="show progress on stderr, a line per file, even when it is not "
            "a terminal",
        )
        progress.add_argument(
            "--no-progress",
            action="store_true",
            help="no progress bar (it is shown only when stdout and stderr are a "
            "terminal)",
        )

    def handle(self, *args, **options):
        path = Path(options["path"]).expanduser()
        if not path.exists():
            raise CommandError(f"{path} does not exist.")
        if path.is_file() and path.suffix.lower() != ".md":
            raise CommandError(f"{path} is not a Markdown (.md) file.")
        parent = self.find_parent(options["parent"])
        # A bar on a terminal; with --progress elsewhere, a line per file.
        self.show_bar = (
            not options["no_progress"] and self.stdout.isatty() and self.stderr.isatty()
        )
        show_progress = self.show_bar or options["progress"]
        importer = Importer(
            path.resolve(),
            parent=parent,
            dry_run=options["dry_run"],
            draft=options["draft"],
            exclude=options["exclude"],
            old_url_prefix=options["old_url_prefix"],
            fetch_images=options["fetch_images"],
            progress=self.show_progress if show_progress else None,
            breaks=options["breaks"],
        )
        where = parent.get_url() or parent.url_path
        self.stdout.write(f"Importing {path} under {where} ({parent.title})")
        with self.progress_bar(self.show_bar):
            report = importer.run()
        if options["verbosity"] >= 2:
            for outcome, label in report.files:
                self.stdout.write(f"{outcome:>9}  {label}")
        self.stdout.write(report.format())
        if options["wait"] and report.queued and is_queued():
            with self.progress_bar(self.show_bar):
                self.wait_for(report.queued)
        if report.failed:
            raise CommandError(
                f"{report.failed} of the files failed to import (listed above)."
            )

    def wait_for(self, ids: list[str]) -> None:
        """Follow the queued tasks ``ids`` until the workers have run them all."""
        self.stdout.write(f"Waiting for the task workers: {len(ids)} tasks …")

        def tick(now: Progress) -> None:
            if self.show_bar or now.done in (0, now.total) or now.done % 50 == 0:
                self.show_progress(now.done, now.total, "渲染")

        def stalled() -> None:
            self.stderr.write(
                "No task worker has started a task for a while: is one running? "
                "Start one with `python manage.py db_worker` (`make run` does); "
                "Ctrl+C stops waiting, the work stays queued."
            )

        done = follow(ids, tick, stalled=stalled)
        if done.failed:
            self.stderr.write(
                f"{done.failed} of {done.total} rendering tasks failed; they are "
                "retried, and listed in the admin under 报告 › 后台任务."
            )
        else:
            self.stdout.write(f"Rendered: {done.total} tasks done.")

    def find_parent(self, url_path: str) -> Page:
        """Return the page at ``url_path`` in the default site; it must hold posts."""
        try:
            site = Site.objects.select_related("root_page").get(is_default_site=True)
        except Site.DoesNotExist as error:
            raise CommandError(
                "There is no default site; run `python manage.py migrate` first."
            ) from error
        except DatabaseError as error:
            raise CommandError(f"The database is not ready ({error}).") from error
        parts = [part for part in url_path.strip("/").split("/") if part]
        full = site.root_page.url_path + "".join(f"{part}/" for part in parts)
        page = Page.objects.filter(url_path=full).first()
        if page is None:
            raise CommandError(f"No page at {url_path!r}.")
        page = page.specific
        if not isinstance(page, HomePage | SeriesPage):
            raise CommandError(
                f"{url_path!r} is a {type(page).__name__}; import under the home "
                "page or a series."
            )
        return page

    @contextmanager
    def progress_bar(self, shown: bool) -> Iterator[None]:
        """Erase the bar, if one was drawn, at the end; log records print above it."""
        self.bar = None
        if not shown:
            yield
            return
        try:
            with logging_redirect_tqdm():
                yield
        finally:
            if self.bar is not None:
                self.bar.close()

    def show_progress(self, done: int, total: int, label: str) -> None:
        """Move the bar on to ``done`` of ``total`` files, or print a line for it."""
        if not self.show_bar:
            self.stderr.write(f"[{done:>{len(str(total))}}/{total}] {label}")
            return
        if self.bar is None:
            self.bar = tqdm(
                total=total,
                file=self.stderr._out,
                unit="file",
                leave=False,  # erased, so that the summary starts a clean line
                dynamic_ncols=True,
            )
        # Shown at once when no file was added: the step that follows is long.
        self.bar.set_postfix_str(label[-40:], refresh=done == self.bar.n)
        self.bar.update(done - self.bar.n)
