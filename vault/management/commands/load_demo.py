"""Build the demo blog: the Markdown folder `vault/demo/content/`, imported.

The posts and series come through the importer, as any author's vault would;
this command adds only what Markdown does not carry: the home page's author
and intro, the tag index and the archive. What already exists is left as it
is (a page made from the same file, or at the same slug), so running the
command again changes nothing.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, transaction
from wagtail.models import Site

from blog.models import ArchivePage, HomePage, TagIndexPage
from vault.importer import Importer

CONTENT = Path(__file__).resolve().parents[2] / "demo" / "content"

AUTHOR = "刘芷溢"
HOME_INTRO = (
    "<p>刘芷溢的技术博客：GPU kernel 与 CUDA 性能分析、LLM 推理与量化，"
    "以及 CSAPP 等计算机系统方向的笔记。</p>"
)


class Command(BaseCommand):
    help = (
        "Build the demo blog (sections, series, posts, tag index, archive) under "
        "the default site's home page. Existing pages are left unchanged."
    )

    def handle(self, *args, **options):
        home = self.get_home()
        with transaction.atomic():
            # Before any page is added, so the home page's revision is taken
            # while its tree fields are current.
            home_updated = self.update_home(home)
            report = Importer(CONTENT, parent=home, keep_existing=True).run()
            if report.failed:
                # All or nothing: roll back what the other files added.
                raise CommandError(
                    "The demo was not loaded; nothing was changed.\n"
                    + "\n".join(f"  {issue}" for issue in report.failures)
                )
            created = report.count("created")
            present = report.count("unchanged")
            for page in (
                TagIndexPage(
                    title="标签", slug="tags", intro="<p>按标签浏览全部文章。</p>"
                ),
                ArchivePage(title="归档", slug="archive"),
            ):
                if self.ensure_page(home, page):
                    created += 1
                else:
                    present += 1

        if options["verbosity"] >= 2:
            for outcome, label in report.files:
                self.stdout.write(f"{outcome:>9}  {label}")
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo content: {created} pages created, "
                f"{present} already present; {report.images_created} images created; "
                f"home page {'updated' if home_updated else 'unchanged'}."
            )
        )

    def get_home(self):
        """Return the default site's HomePage, which a data migration creates."""
        hint = (
            "Run `python manage.py migrate` first: it creates the site and home page."
        )
        try:
            site = Site.objects.select_related("root_page").get(is_default_site=True)
        except Site.DoesNotExist as error:
            raise CommandError(f"There is no default site. {hint}") from error
        except DatabaseError as error:
            raise CommandError(
                f"The database is not ready ({error}). {hint}"
            ) from error
        home = site.root_page.specific
        if not isinstance(home, HomePage):
            raise CommandError(
                f"The default site's root page is a {type(home).__name__}, "
                f"not a HomePage. {hint}"
            )
        return home

    def update_home(self, home):
        """Give a fresh home page the author and intro; never overwrite edits."""
        if home.author or home.intro:
            return False
        home.author = AUTHOR
        home.intro = HOME_INTRO
        home.save_revision().publish()
        return True

    def ensure_page(self, home, page):
        """Add and publish ``page`` under ``home``; return False if it is there.

        The tag index and archive are single pages: one at another slug counts.
        """
        model = type(page)
        existing = home.get_children().filter(slug=page.slug).first()
        if existing is not None and not isinstance(existing.specific, model):
            raise CommandError(
                f"/{page.slug}/ already exists as a "
                f"{type(existing.specific).__name__}, not a {model.__name__}; "
                "move or rename it and run load_demo again."
            )
        if existing is not None or model.objects.exists():
            return False
        home.add_child(instance=page)
        page.save_revision().publish()
        return True
