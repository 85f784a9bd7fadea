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


WATCHING = """document.addEventListener(
    "w-unsaved:watch-edits", () => { window.editsWatched = true; }, true
);"""


def open_editor(page, url: str) -> None:
    """Open an edit or add form once Wagtail watches it for edits.

    Wagtail's unsaved-changes check takes the form as it first is two seconds
    after load; what is typed before then counts as the starting point, so no
    autosave would carry it. An editor never types that fast; a test must wait.
    """
    page.add_init_script(WATCHING)
    page.goto(url)
    page.wait_for_function("() => window.editsWatched === true", timeout=15_000)
