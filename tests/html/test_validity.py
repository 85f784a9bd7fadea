"""Every page type is valid HTML, by the Nu Html Checker (`vnu-jar` from npm).

The pages come from the Django test client, so no browser is needed; the
checker needs Java. The demo blog is loaded once for the module inside a
transaction that is rolled back afterwards, and every page goes to one run of
the checker (one JVM start). Warnings are printed, errors fail.
"""

import json
import shutil
import subprocess
from io import StringIO

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from tests.e2e.ci import ROOT, require
from tests.e2e.pages import IMPORT_PARENT, IMPORT_VAULT, PAGES, page_params

# django_db makes pytest-django create the test database for this module;
# e2e groups it with the browser checks (CI runs them once, on SQLite).
pytestmark = [pytest.mark.django_db, pytest.mark.e2e]

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
# Checked in the same run as the pages: the checker must find its one error,
# so that a page with no message was read, not skipped.
CONTROL = "invalid-control"
CONTROL_HTML = (
    '<!DOCTYPE html><html lang="zh-CN"><head><title>x</title></head>'
    "<body><p><div>不能在段落里</div></p></body></html>"
)


@pytest.fixture(scope="module")
def fetched_pages(django_db_setup, django_db_blocker):
    """Return {page: (status, html)} for every page type of the demo blog."""
    pages = {}
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_demo", verbosity=0)
        call_command(
            "import_markdown",
            str(IMPORT_VAULT),
            parent=IMPORT_PARENT,
            stdout=StringIO(),
        )
        client = Client()
        for page in PAGES:
            response = client.get(page.path)
            pages[page] = (response.status_code, response.content.decode())
        transaction.set_rollback(True)
    # Pages cached while the demo existed must not outlive it.
    caches["default"].clear()
    return pages


@pytest.fixture(scope="module")
def checker_messages(fetched_pages, tmp_path_factory):
    """Return {page name: [vnu message, ...]} from one run of the checker."""
    java = shutil.which("java")
    require(java is not None, "Java is missing (apt-get install default-jre-headless)")
    require(VNU.exists(), f"{VNU.relative_to(ROOT)} is missing: run `make install`")
    folder = tmp_path_factory.mktemp("html")
    files = []
    for name, html in [
        *((page.name, html) for page, (_, html) in fetched_pages.items()),
        (CONTROL, CONTROL_HTML),
    ]:
        path = folder / f"{name}.html"
        path.write_text(html)
        files.append(str(path))
    result = subprocess.run(
        [java, "-jar", str(VNU), "--format", "json", "--stdout", "--exit-zero-always"]
        + files,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    messages = {page.name: [] for page in fetched_pages} | {CONTROL: []}
    for message in json.loads(result.stdout)["messages"]:
        name = message.get("url", "").rsplit("/", 1)[-1].removesuffix(".html")
        messages.setdefault(name, []).append(message)
    return messages


def describe(message):
    where = f"line {message.get('lastLine', '?')}"
    extract = message.get("extract", "").strip().replace("\n", " ")
    return f"{where}: {message['message']} [{extract[:160]}]"


def test_the_checker_reads_every_page_it_is_given(checker_messages):
    errors = [m for m in checker_messages[CONTROL] if m["type"] == "error"]
    assert errors, checker_messages[CONTROL]


@pytest.mark.parametrize("demo_page", page_params())
def test_page_is_valid_html(fetched_pages, checker_messages, demo_page):
    status, _ = fetched_pages[demo_page]
    assert status == demo_page.status
    messages = checker_messages[demo_page.name]
    for message in messages:
        if message["type"] == "info":
            kind = message.get("subType", "info")
            print(f"{demo_page.name}: {kind}: {describe(message)}")  # noqa: T201

    errors = [describe(m) for m in messages if m["type"] != "info"]
    assert not errors, f"{len(errors)} HTML errors:\n" + "\n".join(errors)
