"""A production server started on empty caches stays up under 8 readers.

The site holds twenty math posts, one of thousands of formulas and a large
image. Every cache is emptied after the import rendered it all: the page and
render caches (Redis, or diskcache's folders without REDIS_URL) and the
image renditions. gunicorn then starts with the production settings and no
warm-up (`WARM_ON_START=0`), and 8 clients ask at once for home, the feed,
the long post and search, round after round. None may get a 5xx, and no
worker may run into its timeout (gunicorn logs "WORKER TIMEOUT" and the
request fails): each request renders only what its budget allows. The
clients wait longer than that timeout, so that a machine busy with other
work (a request queued behind others) is not taken for a worker timing out.
`warm_cache` then makes the rest, and the long post is whole.
"""

import os
import secrets
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from PIL import Image

from scripts.bench.traffic import PROXY
from scripts.soak import EMPTY_CACHES
from scripts.support.servers import (
    DROPPED_ENV,
    GUNICORN,
    ROOT,
    collect_static,
    free_port,
    fresh_postgres_database,
    manage,
    wait_until_serving,
)

DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
TIMEOUT = 10  # the workers' (GUNICORN_TIMEOUT)
BUDGET = float(os.environ.get("COLD_START_BUDGET", "1"))  # RENDER_BUDGET_SECONDS
CLIENTS = 8
ROUNDS = 3
LONG = "/long/"
PAGES = ["/", "/feed/", LONG, "/search/?q=GPU"]


def write_vault(folder: Path) -> None:
    """Twenty posts of 100 formulas and code; one of 4,000 and a large image."""
    for n in range(20):
        formulas = "\n\n".join(
            f"$$\\sum_{{i={n}}}^{{{k}}} x_i^{{{k}}}$$" for k in range(100)
        )
        (folder / f"post-{n:02}.md").write_text(
            f"---\ntitle: GPU 笔记 {n}\ndate: 2026-11-{n + 1:02}\n---\n\n{formulas}\n\n"
            f"```cuda\n__global__ void k{n}(float *x) {{ x[{n}] = {n}; }}\n```\n",
            "utf-8",
        )
    noise = Image.effect_noise((2400, 1600), 64).convert("RGB")
    noise.save(folder / "figure.png")
    formulas = "\n\n".join(
        f"$$a_{{{k}}} = \\frac{{{k}}}{{1+{k}^2}}$$" for k in range(4000)
    )
    (folder / "long.md").write_text(
        "---\ntitle: 很长的 GPU 推导\ndate: 2026-12-01\n---\n\n"
        f"![大图](figure.png)\n\n{formulas}\n",
        "utf-8",
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The environment of a production server on a filled database, caches empty."""
    folder = tmp_path_factory.mktemp("cold-start")
    vault = folder / "vault"
    vault.mkdir()
    write_vault(vault)
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        MEDIA_ROOT=str(folder / "media"),
        PAGE_CACHE_DIR=str(folder / "cache" / "pages"),
        RENDER_CACHE_DIR=str(folder / "cache" / "renders"),
        GUNICORN_TIMEOUT=str(TIMEOUT),
        RENDER_BUDGET_SECONDS=str(BUDGET),
        WEB_CONCURRENCY="3",
        WARM_ON_START="0",
        LOG_LEVEL="ERROR",
    )
    if REDIS_URL:
        env["REDIS_URL"] = urlsplit(REDIS_URL)._replace(path="/13").geturl()
    if DATABASE_URL.startswith("postgres"):
        with fresh_postgres_database(
            DATABASE_URL, f"cold_{secrets.token_hex(4)}"
        ) as url:
            yield fill({**env, "DATABASE_URL": url}, vault)
    else:
        yield fill({**env, "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}"}, vault)


def fill(env: dict[str, str], vault: Path) -> dict[str, str]:
    manage(env, "migrate", "--noinput", "-v", "0")
    collect_static(env)
    manage(env, "import_markdown", str(vault), "--no-progress")
    # Every cache emptied: what the import rendered, and the image sizes.
    manage(env, "shell", "-c", EMPTY_CACHES)
    return env


@pytest.fixture(scope="module")
def server(site, tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("cold-start-log") / "server.log"
    with log.open("w") as output:
        process = subprocess.Popen(  # noqa: S603
            [str(GUNICORN), "-c", "config/gunicorn.py", "config.wsgi"],
            cwd=ROOT,
            env={**site, "BIND": f"127.0.0.1:{port}"},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(process, url + "/healthz", 60, log.read_text)
        yield url, log
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_eight_readers_on_a_cold_server_get_no_error_and_never_wait_out(server, site):
    server, log = server
    results = []
    lock = threading.Lock()

    def reader(offset: int) -> None:
        http = requests.Session()
        for step in range(ROUNDS * len(PAGES)):
            path = PAGES[(offset + step) % len(PAGES)]
            start = time.monotonic()
            try:
                status = http.get(server + path, headers=PROXY, timeout=4 * TIMEOUT)
                code = status.status_code
            except requests.RequestException:
                code = 0
            with lock:
                results.append((path, code, time.monotonic() - start))

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == CLIENTS * ROUNDS * len(PAGES)
    for page in PAGES:
        times = [f"{s:.1f}" for path, _, s in results if path == page]
        print(f"cold start {page}: {' '.join(times)} s")  # noqa: T201
    failed = [(path, code) for path, code, _ in results if not 200 <= code < 500]
    assert failed == []
    assert "WORKER TIMEOUT" not in log.read_text()

    # The long post was shown in part (sources, the original image) meanwhile;
    # once warm_cache has run it is whole, with every size of its image.
    manage(site, "warm_cache", "--no-progress")
    page = requests.get(server + LONG, headers=PROXY, timeout=TIMEOUT).text
    assert "math-pending" not in page
    assert page.count('class="katex-display"') == 4000
    assert "<picture" in page and 'type="image/avif"' in page
    feed = requests.get(server + "/feed/", headers=PROXY, timeout=TIMEOUT).text
    assert "阅读全文" not in feed
