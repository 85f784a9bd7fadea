"""Editors for the admin's browser tests: an account per test module, and its login."""

from scripts.support.servers import manage

PASSWORD_SUFFIX = "-has-a-long-passphrase"


def create_editor(demo_server, username: str) -> tuple[str, str]:
    """Create a superuser on the demo server; return (username, password)."""
    password = username + PASSWORD_SUFFIX
    manage(
        demo_server.env,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_superuser({username!r}, "
        f"'{username}@example.com', {password!r})",
    )
    return username, password


def log_in(page, login: tuple[str, str]) -> None:
    """Sign in through the admin's login form and wait for the dashboard."""
    page.goto("/admin/login/")
    page.fill("#id_username", login[0])
    page.fill("#id_password", login[1])
    page.click("button[type=submit]")
    page.wait_for_url("**/admin/")
