"""Write the page tree as folders of Markdown with front matter (a backup format).

The format is docs/markdown-format.md; `import_markdown` reads it back.
"""

from django.core.management.base import BaseCommand, CommandError

from vault.exporter.tree import ExportError, export_site


class Command(BaseCommand):
    help = (
        "Export every series and post under the home page to OUTDIR as Markdown "
        "files with front matter, images beside them (docs/markdown-format.md). "
        "Drafts are exported too, each page as its latest revision."
    )

    def add_arguments(self, parser):
        parser.add_argument("outdir", help="folder to write; must be empty or new")
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace OUTDIR even if it is not empty",
        )

    def handle(self, *args, **options):
        try:
            stats = export_site(options["outdir"], force=options["force"])
        except ExportError as error:
            raise CommandError(str(error)) from error
        for warning in stats.warnings:
            self.stderr.write(f"warning: {warning}")
        drafts = f" ({stats.drafts} of them drafts)" if stats.drafts else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"Exported {stats.posts} posts, {stats.series} series{drafts}, "
                f"{stats.images} images → {options['outdir']}"
            )
        )
