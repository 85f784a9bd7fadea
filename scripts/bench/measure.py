"""Build a bench site and measure it: queries, render times, throughput, import.

`scripts/bench.py` runs these for each database and size, and
`scripts/bench/report.py` checks the figures against the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

import psycopg

from scripts.bench import content
from scripts.bench.load import (
    expect_ok,
    fetch,
    page_weight,
    times_in_turns,
    warm_up,
    wrk,
)
from scripts.bench.server import Gunicorn
from scripts.support.servers import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SITE = ROOT / "scripts" / "bench" / "site.py"
BENCH = ROOT / ".bench"
RESULTS = BENCH / "results.json"
# The production STATIC_ROOT: WhiteNoise serves what is in it at startup.
STATIC_ROOT = ROOT / "staticfiles"
STATIC_BENCH = STATIC_ROOT / "bench"
# Variables of the calling shell that would point the servers elsewhere.
DROPPED_ENV = (
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "PAGE_CACHE_SECONDS",
    "PAGE_CACHE_DIR",
    "RENDER_CACHE_DIR",
)

# One key for every process of a run; the production settings require one.
SECRET_KEY = secrets.token_urlsafe(50)


class BenchError(RuntimeError):
    """The benchmark could not run (as opposed to a target not met)."""


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def bench_env(database_url: str, folder: Path, **extra: str) -> dict[str, str]:
    """Return the environment of the production settings on a bench database."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        DATABASE_URL=database_url,
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",  # plain HTTP on 127.0.0.1
        SECURE_HSTS_SECONDS="0",
        PAGE_CACHE_DIR=str(folder / "pagecache"),
        RENDER_CACHE_DIR=str(folder / "renders"),
        LOG_LEVEL="WARNING",
        # The site is built with its background work done as it is queued
        # (no task worker to wait for): what is measured is serving it.
        TASKS_BACKEND="django_tasks.backends.immediate.ImmediateBackend",
        PYTHONPATH=str(ROOT),
        **extra,
    )
    return env


def step(name: str, argv: list[str], env: dict[str, str], folder: Path) -> str:
    """Run a command to completion, its output in `folder/name.log`; return stdout."""
    log = folder / f"{name}.log"
    done = subprocess.run(  # noqa: S603
        argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    log.write_text(done.stdout + done.stderr)
    if done.returncode:
        tail = (done.stdout + done.stderr)[-3000:]
        raise BenchError(f"{name} failed (exit {done.returncode}), see {log}:\n{tail}")
    return done.stdout


@contextmanager
def bench_database(kind: str, size: int, folder: Path, admin_url: str) -> Iterator[str]:
    """Yield the URL of a fresh, empty database; drop it afterwards (PostgreSQL)."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'db.sqlite3'}"
        return
    try:
        with fresh_postgres_database(admin_url, f"bench_{size}") as url:
            yield url
    except psycopg.Error as error:
        raise BenchError(f"PostgreSQL at {admin_url}: {error}") from error


class Phases:
    """Wall-clock seconds of each phase of a run."""

    def __init__(self, seconds: dict[str, float] | None = None):
        self.seconds: dict[str, float] = {} if seconds is None else seconds

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.seconds[name] = round(time.perf_counter() - started, 1)


class Site(NamedTuple):
    """A built bench site: its production environment, page cache on and off."""

    env: dict[str, str]
    render_env: dict[str, str]
    folder: Path


def bench_run(
    kind: str, size: int, args: argparse.Namespace, stack: ExitStack
) -> tuple[dict, Site]:
    """Build one site and measure it; return its figures, and the site.

    Its database lives as long as `stack`, so that it can be compared with
    the other sizes and imported into afterwards.
    """
    folder = BENCH / f"{kind}-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    say(f"\n== {kind}, {size} posts ({folder.relative_to(ROOT)}/)")
    phase = Phases()
    manifest_path = folder / "site.json"
    pages_path = folder / "pages.json"
    url = stack.enter_context(bench_database(kind, size, folder, args.postgres_url))
    site = Site(
        env=bench_env(url, folder),
        render_env=bench_env(url, folder, PAGE_CACHE_SECONDS="0"),
        folder=folder,
    )
    with phase("migrate"):
        argv = [PYTHON, "manage.py", "migrate", "--noinput"]
        step("migrate", argv, site.env, folder)
    with phase("generate"):
        argv = [PYTHON, str(SITE), "generate", f"--posts={size}"]
        argv += [f"--seed={args.seed}", f"--manifest={manifest_path}"]
        sys.stdout.write(step("generate", argv, site.env, folder))
    with phase("inspect"):
        argv = [PYTHON, str(SITE), "inspect", f"--manifest={manifest_path}"]
        argv += [f"--html-dir={STATIC_BENCH}", f"--out={pages_path}"]
        sys.stdout.write(step("inspect", argv, site.render_env, folder))
    pages = json.loads(pages_path.read_text())
    rss = {}
    say("  render times, page cache off …")
    with (
        phase("render"),
        Gunicorn(
            site.render_env, folder, name="render", workers=args.workers
        ) as server,
    ):
        measure_render(server, pages, args)
        rss["render"] = server.worker_rss_mb()
    say("  throughput, page cache on, and the static floor …")
    shutil.rmtree(folder / "pagecache", ignore_errors=True)
    with (
        phase("load"),
        Gunicorn(site.env, folder, name="cached", workers=args.workers) as server,
    ):
        for page in pages.values():
            measure_throughput(server, page, args)
        rss["cached"] = server.worker_rss_mb()
    run = {
        "database": kind,
        "posts": size,
        "phases_seconds": phase.seconds,
        "pages": pages,
        "worker_rss_mb": rss,
        "import": None,
    }
    say(
        "  done in "
        + ", ".join(f"{name} {s:.0f} s" for name, s in phase.seconds.items())
    )
    return run, site


def bench_database_sizes(
    kind: str, args: argparse.Namespace
) -> tuple[list[dict], dict | None]:
    """Measure every size on one database; compare the extremes; import into the largest.

    Return the runs, and the comparison (None with a single size).
    """
    with ExitStack() as stack:
        built = [bench_run(kind, size, args, stack) for size in args.sizes]
        comparison = None
        if len(built) > 1:
            comparison = compare_sizes(kind, built[0], built[-1], args)
        # Once per database, into its largest site: the import's hardest case.
        if args.import_posts:
            run, site = built[-1]
            say(f"\n== {kind}, import_markdown of {args.import_posts} posts …")
            with Phases(run["phases_seconds"])("import"):
                run["import"] = import_markdown(site.env, site.folder, args)
    return [run for run, _ in built], comparison


def compare_sizes(
    kind: str,
    small: tuple[dict, Site],
    large: tuple[dict, Site],
    args: argparse.Namespace,
) -> dict:
    """Time each page of the smallest and the largest site in turns; return the ratios.

    Both sites are served at once (page cache off, render cache warm), and
    their pages are requested alternately, one request each, so that the two
    sizes share the machine's load alike: timed minutes apart, as the
    per-size tables are, a busy spell on a shared host reads as a slower site.
    """
    (small_run, small_site), (large_run, large_site) = small, large
    say(
        f"\n== {kind}, {small_run['posts']} and {large_run['posts']} posts "
        "in turns, page cache off …"
    )
    pages = {}
    with (
        Gunicorn(
            small_site.render_env, small_site.folder, name="turns", workers=args.workers
        ) as one,
        Gunicorn(
            large_site.render_env, large_site.folder, name="turns", workers=args.workers
        ) as other,
    ):
        for name, page in large_run["pages"].items():
            if name not in small_run["pages"]:
                continue
            targets = [
                (one, one.url + small_run["pages"][name]["url"]),
                (other, other.url + page["url"]),
            ]
            for _, url in targets:
                warm_up(url, parallel=2 * args.workers, budget=args.duration)
            small_ms, large_ms = times_in_turns(targets, 2 * args.duration)
            pages[name] = {
                "small_ms": small_ms,
                "large_ms": large_ms,
                "ratio": round(large_ms["p50"] / max(small_ms["p50"], 0.1), 2),
            }
    return {
        "database": kind,
        "small": small_run["posts"],
        "large": large_run["posts"],
        "render_ms": pages,
        "render_p50_ratio": {name: page["ratio"] for name, page in pages.items()},
    }


def measure_render(server: Gunicorn, pages: dict, args: argparse.Namespace) -> None:
    """Time the pages' renders (page cache off) once every worker has them.

    Each page for `args.duration` s on its own ("render_ms", what the target
    reads), then all of them in turns for as long ("mixed_ms"): a worker that
    serves a different page each time is slower, its processor's caches
    holding another page's code and data.
    """
    urls = [server.url + page["url"] for page in pages.values()]
    for url in urls:
        warm_up(url, parallel=2 * args.workers, budget=args.duration)
    for page, url in zip(pages.values(), urls, strict=True):
        page["render_ms"] = times_in_turns([(server, url)], args.duration)[0]
    mixed = times_in_turns([(server, url) for url in urls], args.duration * len(urls))
    for page, times in zip(pages.values(), mixed, strict=True):
        page["mixed_ms"] = times


def measure_throughput(server: Gunicorn, page: dict, args: argparse.Namespace) -> None:
    """wrk the page (page cache on) and its static copy; add rps, ratio and weight."""
    url = server.url + page["url"]
    static_url = f"{server.url}/static/{page['static_path']}"
    warm_up(url, parallel=2 * args.workers, budget=args.duration)
    page["page_cache"] = fetch(url).headers.get("x-page-cache", "absent")
    static = expect_ok(static_url)
    page["static_encoding"] = static.headers.get("content-encoding", "")
    warm_up(static_url, parallel=2 * args.workers, budget=args.duration)
    load = {
        "duration": args.duration,
        "connections": args.connections,
        "threads": args.threads,
    }
    page["cached"] = wrk(url, **load)
    page["static"] = wrk(static_url, **load)
    page["ratio"] = round(page["cached"]["rps"] / page["static"]["rps"], 2)
    page["weight"] = page_weight(server.url, page["url"])


def import_markdown(
    env: dict[str, str], folder: Path, args: argparse.Namespace
) -> dict:
    """Time `manage.py import_markdown` on freshly written Markdown posts."""
    vault = folder / "import"
    series = vault / "bench-import"
    series.mkdir(parents=True)
    rng = random.Random(args.seed)  # noqa: S311 (content, not secrets)
    sizes = []
    for number in range(1, args.import_posts + 1):
        text = content.markdown_post(rng, number)
        (series / f"{number:03d}-post.md").write_text(text)
        sizes.append(len(text))
    started = time.perf_counter()
    result = {
        "posts": args.import_posts,
        "chars_per_post": round(sum(sizes) / len(sizes)),
    }
    try:
        step(
            "import", [PYTHON, "manage.py", "import_markdown", str(vault)], env, folder
        )
    except BenchError as error:
        # The site failed at its job, which is a result: the target says FAIL.
        say(f"  {error}")
        lines = str(error).strip().splitlines()
        return {**result, "error": f"{lines[0]} {lines[-1]}"}
    seconds = time.perf_counter() - started
    return {
        **result,
        "seconds": round(seconds, 1),
        "posts_per_second": round(args.import_posts / seconds, 1),
    }
