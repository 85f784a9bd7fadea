"""Create the local admin account once and print how to log in."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


def login_file():
    """Return where the generated password is kept (git-ignored)."""
    return settings.BASE_DIR / ".admin-login"


class Command(BaseCommand):
    help = "Create a superuser 'admin' for local use (once) and print its login."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        password = self.saved_password() or secrets.token_urlsafe(12)
        user_model = get_user_model()
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user_model.objects.create_superuser(username, "", password)
            login_file().write_text(password + "\n", encoding="utf-8")
            login_file().chmod(0o600)
            note = "created"
        elif user.check_password(password):
            note = "exists"
        else:
            self.stdout.write(
                f"Admin user '{username}' exists with a password you set yourself: "
                f"log in at {settings.WAGTAILADMIN_BASE_URL}/admin/"
            )
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Admin ({note}): {settings.WAGTAILADMIN_BASE_URL}/admin/  "
                f"user: {username}  password: {password}  (saved in {login_file().name})"
            )
        )

    def saved_password(self) -> str:
        try:
            return login_file().read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""
