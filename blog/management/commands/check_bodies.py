"""Check every post and series body for the writing dashboard.

Saves keep the checks up to date; run this once on a site whose pages were
saved before the dashboard checked bodies, or with ``--all`` after an upgrade.
"""

from django.core.management.base import BaseCommand

from blog.models import BodyCheck
from blog.writing import check_page, checked_models


class Command(BaseCommand):
    help = (
        "Find the broken page links and bad formulas of every body, for the dashboard."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all",
            action="store_true",
            help="Check bodies checked before too (unchanged ones are skipped).",
        )

    def handle(self, *args, **options):
        checked = 0
        for model in checked_models():
            pages = model.objects.select_related("latest_revision").order_by("pk")
            if not options["all"]:
                pages = pages.exclude(pk__in=BodyCheck.objects.values("pk"))
            for page in pages.iterator(chunk_size=100):
                checked += check_page(page)
        self.stdout.write(f"Checked {checked} bodies.")
