"""The backup and restore drill of the deployment guide, on PostgreSQL.

The demo blog in a fresh database is dumped with `pg_dump -Fc`, restored with
`pg_restore` into an empty database, and both are compared: the same content
rows, the same pages served, the same Markdown exported. (The Markdown export
alone rebuilding the site is tested in tests/vault/exporter/.)
"""

import filecmp
import os
import secrets
import subprocess

import pytest

from scripts.support.servers import DROPPED_ENV, ROOT, fresh_postgres_database
from scripts.support.servers import manage as manage_with

DATABASE_URL = os.environ.get("DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not DATABASE_URL.startswith("postgres"), reason="needs DATABASE_URL (PostgreSQL)"
)
CONTENT = ["wagtailcore.page", "wagtailcore.revision", "blog", "series", "taggit"]
PAGES = ["/", "/cuda/", "/cuda/bank-conflict-swizzle/", "/tags/cuda/", "/feed/"]
RENDER = (
    "from django.test import Client; import hashlib, os; c = Client();"
    "[print(p, c.get(p).status_code, hashlib.sha256(c.get(p).content).hexdigest())"
    " for p in os.environ['DRILL_PAGES'].split()]"
)


def run(argv, env=None):
    result = subprocess.run(  # noqa: S603
        argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture
def databases():
    suffix = secrets.token_hex(3)
    with (
        fresh_postgres_database(DATABASE_URL, f"drill_{suffix}_live") as live,
        fresh_postgres_database(DATABASE_URL, f"drill_{suffix}_restored") as restored,
    ):
        yield live, restored


def test_a_dump_restored_into_an_empty_database_gives_the_same_site(
    databases, tmp_path
):
    live, restored = databases
    base = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    base.update(
        DJANGO_SETTINGS_MODULE="tests.scaleout.settings",
        PYTHONPATH=str(ROOT),
        # One media folder: what the guide backs up beside the dump.
        DRILL_MEDIA_ROOT=str(tmp_path / "media"),
        DRILL_PAGES=" ".join(PAGES),
    )
    env = {
        "live": {**base, "DATABASE_URL": live},
        "restored": {**base, "DATABASE_URL": restored},
    }

    def manage(side, *args):
        return manage_with(env[side], *args)

    manage("live", "migrate", "--noinput", "-v", "0")
    manage("live", "load_demo", "-v", "0")
    # Served before the backup, as a live site is: its image renditions exist.
    served = {"live": manage("live", "shell", "-c", RENDER)}
    dump = tmp_path / "blog.dump"
    run(["pg_dump", "-Fc", "--no-owner", "-f", str(dump), live])
    run(["pg_restore", "--no-owner", "-d", restored, str(dump)])

    content = {
        side: manage(side, "dumpdata", *CONTENT, "--indent", "0") for side in env
    }
    assert content["live"] == content["restored"]
    assert '"model": "blog.postpage"' in content["live"]

    served["restored"] = manage("restored", "shell", "-c", RENDER)
    assert served["live"] == served["restored"]
    statuses = {
        line.split()[0]: line.split()[1]
        for line in served["live"].splitlines()
        if line.startswith("/")
    }
    assert statuses == dict.fromkeys(PAGES, "200")

    for side in env:
        manage(side, "export_markdown", str(tmp_path / f"export-{side}"))
    comparison = filecmp.dircmp(tmp_path / "export-live", tmp_path / "export-restored")
    assert not comparison.diff_files and not comparison.left_only
    assert not comparison.right_only
