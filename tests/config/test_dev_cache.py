"""`make run` and a command beside it share one cache: an import shows at once.

The development server keeps its pages in the page cache; `import_markdown`
run in another terminal purges what it changed. Both must reach the same
cache, so development keeps it in files (config/settings/dev.py), as
production does without Redis.
"""

import os
import shutil
import subprocess
import urllib.request

import diskcache
import pytest

from scripts.support.servers import (
    DROPPED_ENV,
    PYTHON,
    ROOT,
    free_port,
    manage,
    wait_until_serving,
)

TITLE = "导入后立即可见的新文章"
POST = f"""---
title: {TITLE}
date: 2099-01-01
---

A post written after the server had cached the home page.
"""


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310
        return response.read().decode()


def environment(folder):
    """Return the environment of `make run` with everything it writes in ``folder``."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DJANGO_SETTINGS_MODULE="tests.config.dev_server_settings",
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        PAGE_CACHE_DIR=str(folder / "cache" / "pages"),
        RENDER_CACHE_DIR=str(folder / "cache" / "renders"),
        MEDIA_ROOT=str(folder / "media"),
        PYTHONPATH=str(ROOT),
    )
    return env


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """A migrated SQLite database, made once: each test gets a copy."""
    folder = tmp_path_factory.mktemp("migrated")
    manage(environment(folder), "migrate", "--noinput", "--verbosity", "0")
    return folder / "db.sqlite3"


@pytest.fixture
def dev_env(tmp_path, migrated):
    shutil.copy(migrated, tmp_path / "db.sqlite3")
    return environment(tmp_path)


def test_an_import_beside_the_dev_server_shows_on_the_next_request(dev_env, tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    # What `make run` starts; --noreload so that terminate() stops it whole.
    command = [PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(  # noqa: S603
        command, cwd=ROOT, env=dev_env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        wait_until_serving(
            process, url, 60, lambda: (tmp_path / "server.log").read_text()
        )
        assert TITLE not in get(url)
        # The home page is in the page cache now, or this test would prove nothing.
        with diskcache.FanoutCache(dev_env["PAGE_CACHE_DIR"]) as pages:
            assert len(pages) > 0

        vault = tmp_path / "vault"
        vault.mkdir()
        (vault / "new-post.md").write_text(POST, encoding="utf-8")
        manage(dev_env, "import_markdown", str(vault), "--parent", "/")

        assert TITLE in get(url)
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_development_keeps_its_cache_in_files_apart_from_production():
    result = subprocess.run(  # noqa: S603
        [
            PYTHON,
            "-c",
            "import config.settings.dev as d; "
            "print(d.CACHES['default']['BACKEND'], d.CACHES['default']['LOCATION'])",
        ],
        cwd=ROOT,
        env={
            k: v
            for k, v in os.environ.items()
            if k not in {*DROPPED_ENV, "PAGE_CACHE_DIR", "RENDER_CACHE_DIR"}
        },
        capture_output=True,
        text=True,
        check=True,
    )
    backend, location = result.stdout.split()
    assert backend == "config.cache.DiskCache"
    assert location == str(ROOT / ".cache" / "dev" / "pages")
