"""Browser tests: the system Chromium, driven by Playwright, against a real server.

One demo server (`DemoServer`, its own process and SQLite database) and one
browser serve every test in this package; each test gets fresh browser
contexts. Without Chromium or Playwright these tests are skipped, except under
`CI=true`, where a browser test that does not run is a failure.
"""

import os
import shutil
from pathlib import Path

import pytest

from scripts.support.servers import DemoServer
from tests.e2e.admin import create_editor, log_in
from tests.e2e.ci import ARTIFACTS, IN_CI, require
from tests.e2e.pages import DESKTOP, IMPORT_PARENT, IMPORT_VAULT

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# What this machine kind needs: no sandbox as root, and no calls home (the
# network is closed, and Chromium's background requests would be refused).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ARTIFACTS / "screenshots"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI=true, a skipped browser test is a failed one (xfail stays xfail)."""
    report = yield
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"Skipped under CI=true: {report.longrepr}"
    return report


EXPLORER_LOADED = """() => {
    const slot = document.querySelector(".explorer-slot");
    return !slot || slot.childElementCount > 0;
}"""


@pytest.fixture(scope="package")
def chromium_path():
    require(sync_playwright is not None, "Playwright is not installed")
    path = shutil.which(CHROMIUM) or (CHROMIUM if Path(CHROMIUM).exists() else None)
    require(
        path is not None,
        f"No Chromium at {CHROMIUM} (apt-get install -y chromium fonts-noto-cjk)",
    )
    return path


@pytest.fixture(scope="package")
def demo_server(chromium_path):
    """The demo blog served by gunicorn; its URL is `demo_server.url`."""
    with DemoServer(
        "tests.e2e.settings", imports=[(IMPORT_VAULT, IMPORT_PARENT)]
    ) as server:
        yield server


@pytest.fixture(scope="package")
def browser(chromium_path):
    # Package scope, not session: while Playwright's event loop runs, Django
    # treats this thread as async and refuses ORM calls in later tests.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


class PageProblems:
    """What went wrong while a page loaded: console errors, exceptions, failed loads."""

    def __init__(self, page, expected_status=200):
        self.page = page
        self.expected_status = expected_status
        self.document_url = ""
        self.errors = []
        page.on("console", self.on_console)
        page.on("pageerror", lambda error: self.errors.append(f"exception: {error}"))
        page.on("requestfailed", self.on_request_failed)
        page.on("response", self.on_response)
        # Loads the page's own navigation cut short (a test going on to the
        # next page while a fragment was still loading) are not its problems.
        self.navigations = 0
        self.started: dict = {}
        page.on("request", self.on_request)

    def on_request(self, request):
        # A navigation starts before the loads it cuts short fail.
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.navigations += 1
        else:
            self.started[request] = self.navigations

    def is_document(self, url):
        return url == self.document_url

    def on_console(self, message):
        if message.type != "error":
            return
        url = message.location.get("url", "")
        # Chromium logs the 404 page's own status; that one is expected.
        if self.expected_status >= 400 and self.is_document(url):
            return
        # Chromium asks for /favicon.ico once per browser, so whichever test
        # comes first would see it; test_site_has_a_favicon checks it instead.
        if url.endswith("/favicon.ico"):
            return
        self.errors.append(f"console: {message.text} ({url})")

    def on_request_failed(self, request):
        # Chromium drops a page's favicon load when something else takes the
        # page first (seen under load in the admin, and on the site's
        # favicon.svg when a test navigates on at once); test_site_has_a_favicon
        # checks that it is served.
        favicon = request.url.rsplit("/", 1)[-1].startswith("favicon.")
        aborted = request.failure == "net::ERR_ABORTED"
        if aborted and (favicon or self.started.get(request, -1) < self.navigations):
            return
        self.errors.append(f"failed: {request.url} ({request.failure})")

    def on_response(self, response):
        if response.status >= 400 and not self.is_document(response.url):
            self.errors.append(f"HTTP {response.status}: {response.url}")


@pytest.fixture
def new_context(request, browser):
    """Return `new(**options)` -> a fresh browser context, closed after the test.

    The options are Playwright's `Browser.new_context`'s; unless they say
    otherwise, the context opens the demo server (`base_url`), in Chinese
    (`locale`), in a desktop window (`viewport`).
    """
    contexts = []

    def new(**options):
        if "base_url" not in options:
            options["base_url"] = request.getfixturevalue("demo_server").url
        context = browser.new_context(
            **{"locale": "zh-CN", "viewport": DESKTOP, **options}
        )
        contexts.append(context)
        return context

    yield new
    for context in contexts:
        context.close()


@pytest.fixture
def open_page(new_context, demo_server):
    """Return `open(demo_page, color_scheme=..., viewport=...)` -> (page, problems).

    Each call gets a fresh browser context (no stored theme, no cookies). The
    page is loaded and its status checked against `demo_page.status`.
    `bypass_csp` lets a test inject its own inline script (axe), which the
    site's Content-Security-Policy refuses.
    """

    def open_(
        demo_page,
        *,
        color_scheme="light",
        viewport=DESKTOP,
        permissions=(),
        bypass_csp=False,
    ):
        context = new_context(
            color_scheme=color_scheme, viewport=viewport, bypass_csp=bypass_csp
        )
        if permissions:
            context.grant_permissions(list(permissions), origin=demo_server.url)
        page = context.new_page()
        problems = PageProblems(page, demo_page.status)
        problems.document_url = demo_server.url + demo_page.path
        response = page.goto(demo_page.path, wait_until="load")
        problems.document_url = response.url
        assert response.status == demo_page.status, (
            f"{demo_page.path} answered {response.status}"
        )
        # The explorer is loaded by the page (static/js/explorer.js): what a
        # reader sees a moment after the load.
        page.wait_for_function(EXPLORER_LOADED, timeout=10_000)
        return page, problems

    return open_


@pytest.fixture(scope="module")
def editor_login(request, demo_server):
    """A superuser of the demo server for this test module: (username, password).

    One per module, so that what one module's editor leaves behind (autosaved
    drafts, which the add form offers back to their owner) never shows in
    another's. A module that needs another kind of editor overrides it.
    """
    name = request.module.__name__.rpartition(".")[2].removeprefix("test_")
    return create_editor(demo_server, "e2e-" + name.replace("_", "-"))


@pytest.fixture
def admin_page(new_context, editor_login):
    """Return `open(**context options)` -> (page, problems), logged into the admin.

    The page is the admin's dashboard, signed in as `editor_login`; `problems`
    has watched it from the login form on.
    """

    def open_(**options):
        page = new_context(**options).new_page()
        problems = PageProblems(page)
        log_in(page, editor_login)
        return page, problems

    return open_


@pytest.fixture(scope="session")
def screenshot_dir():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
