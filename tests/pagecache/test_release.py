"""A deploy does not serve what the previous release cached (pagecache.release)."""

import shutil
from pathlib import Path

import pytest
from django.conf import settings

from pagecache.release import source_digest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def checkout(tmp_path):
    """A copy of this checkout's source folders."""
    for folder in settings.RELEASE_SOURCE_FOLDERS:
        shutil.copytree(
            ROOT / folder,
            tmp_path / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return tmp_path


def test_the_digest_changes_with_a_template_or_the_code(checkout):
    before = source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS)
    assert source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS) == before

    template = checkout / "templates" / "base.html"
    template.write_text(template.read_text() + "\n{# a new footer #}\n")
    after_template = source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS)
    assert after_template != before

    code = checkout / "blog" / "models" / "post.py"
    code.write_text(code.read_text() + "\n# a change\n")
    assert source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS) not in (
        before,
        after_template,
    )


def test_the_digest_ignores_what_does_not_shape_a_page(checkout):
    before = source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS)
    (checkout / "blog" / "__pycache__").mkdir(exist_ok=True)
    (checkout / "blog" / "__pycache__" / "models.cpython-311.pyc").write_bytes(b"x")
    (checkout / "static" / "notes.md").write_text("scratch")
    assert source_digest(checkout, settings.RELEASE_SOURCE_FOLDERS) == before


def test_the_digest_reads_every_app_that_shapes_a_page():
    # A new app's code must change the release too: each app beside manage.py
    # is listed, but for those that make no page (tests, tools, migrations).
    apps = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert apps - set(settings.RELEASE_SOURCE_FOLDERS) <= {
        "background",  # task workers and the admin's report: no public page
        "series",
        "vault",
        "tests",
        "scripts",
    }


def test_a_new_release_serves_nothing_the_old_one_cached(client, home, settings):
    settings.PAGE_CACHE_SECONDS = 3600
    settings.RELEASE = "2026.12.1"
    client.get("/")
    assert client.get("/")["X-Page-Cache"] == "hit"

    settings.RELEASE = "2026.12.2"  # deployed
    assert client.get("/")["X-Page-Cache"] == "miss"
    assert client.get("/")["X-Page-Cache"] == "hit"
