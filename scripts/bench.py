"""`make bench`: how the blog serves 1,000 and 10,000 posts, on SQLite and PostgreSQL.

For each database and size, a fresh database — an SQLite file under .bench/,
and, when DATABASE_URL names a PostgreSQL server, a `bench_<size>` database on
it (dropped afterwards) — is migrated and filled with a synthetic site
(scripts/bench/site.py: bilingual posts with math and code, 50 tags, 30
series in 4 sections, one math-heavy post). Then, for each page type (home,
section, series, the math-heavy post, tag index, tag, archive, search, site
feed, sitemap):

- queries: SQL queries of one request (Django's test client, in-process,
  after a warm-up);
- render p50/p95: gunicorn's own time per request, one at a time, with the
  page cache off (PAGE_CACHE_SECONDS=0) and the render cache warm, each page
  asked repeatedly (the target); and "mixed p50", the same with every page
  type asked in turns, as real traffic comes (slower: see measure_render);
- cached rps: wrk against gunicorn with the page cache on, after a warm-up;
- static rps: wrk against the same bytes served as a static file by the same
  gunicorn (WhiteNoise, Brotli): the floor; ratio = cached rps / static rps;
- weight: bytes sent (Brotli) of the page and of the CSS and JS it links.

Also: the workers' memory (VmRSS) after the load, the time `import_markdown`
takes for 200 Markdown posts of ~10k characters (once per database, into the
largest site, after the other measurements), and the render time of the
largest size against the smallest: both sites served at once and their pages
asked in turns, one request each, so that a busy spell on a shared machine
slows both alike (timed minutes apart, a size would take the blame for it).
gunicorn runs the production settings with
2 sync workers on a free port of 127.0.0.1, after `collectstatic`; the page
cache and the render cache live in diskcache folders under .bench/ (REDIS_URL
is not used).

The table ends with the targets, PASS or FAIL; everything goes to
.bench/results.json. The exit status is 0 when targets fail (the table says
so) and non-zero when the benchmark itself could not run.

    make bench                                         # 1,000 and 10,000 posts
    make bench BENCH_ARGS="--sizes 200 --duration 3"   # a quick smoke run
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres make bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from scripts.bench import content  # noqa: E402
from scripts.bench.load import (  # noqa: E402
    expect_ok,
    fetch,
    page_weight,
    times_in_turns,
    warm_up,
    wrk,
    wrk_path,
)
from scripts.bench.server import Gunicorn  # noqa: E402
from tests.e2e.server import fresh_postgres_database  # noqa: E402

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

# Targets.
MAX_QUERIES = 10
RENDER_LISTING_MS = 15.0
RENDER_POST_MS = 25.0
POST_PAGE = "post"  # the math-heavy post; every other page type is a listing
CACHED_VS_STATIC = 0.6
SCALING = 1.3
MAX_RSS_MB = 200.0
IMPORT_SECONDS_PER_200 = 60.0

# One key for every process of a run; the production settings require one.
SECRET_KEY = secrets.token_urlsafe(50)


class BenchError(RuntimeError):
    """The benchmark could not run (as opposed to a target not met)."""


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def parse_args() -> argparse.Namespace:
    env_url = os.environ.get("DATABASE_URL", "")
    on_postgres = urlsplit(env_url).scheme in ("postgres", "postgresql")
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--sizes", default="1000,10000", help="numbers of posts, comma-separated"
    )
    parser.add_argument(
        "--databases",
        default="sqlite,postgresql" if on_postgres else "sqlite",
        help="sqlite and/or postgresql (the default adds postgresql when "
        "DATABASE_URL is a PostgreSQL URL)",
    )
    parser.add_argument(
        "--postgres-url",
        default=env_url if on_postgres else "",
        help="a PostgreSQL server to create the bench_<size> databases on",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=3.0,
        help="seconds of each wrk run and of each page's render timing",
    )
    parser.add_argument("--connections", type=int, default=8, help="wrk connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--import-posts",
        type=int,
        default=200,
        help="Markdown posts to time import_markdown with (0: skip)",
    )
    parser.add_argument("--seed", type=int, default=1, help="of the synthetic site")
    args = parser.parse_args()
    try:
        args.sizes = sorted({int(size) for size in args.sizes.split(",") if size})
    except ValueError:
        parser.error("--sizes takes numbers, e.g. 1000,10000")
    if not args.sizes or min(args.sizes) < 10:
        parser.error("--sizes: at least 10 posts")
    args.databases = [name.strip() for name in args.databases.split(",") if name]
    unknown = set(args.databases) - {"sqlite", "postgresql"}
    if unknown:
        parser.error(f"--databases: unknown {', '.join(sorted(unknown))}")
    if "postgresql" in args.databases and not args.postgres_url:
        parser.error("postgresql needs --postgres-url or a PostgreSQL DATABASE_URL")
    if args.threads > args.connections:
        parser.error("--threads cannot exceed --connections")
    return args


def ensure_wrk() -> None:
    """Install wrk (Debian package) when missing and running as root."""
    if wrk_path():
        return
    if os.geteuid() != 0:
        raise BenchError("wrk is missing: install it with `apt-get install -y wrk`.")
    say("wrk is missing: apt-get install -y wrk")
    apt = ["apt-get", "install", "-y", "--no-install-recommends", "wrk"]
    if subprocess.run(apt, check=False).returncode:  # noqa: S603
        subprocess.run(["apt-get", "update"], check=False)  # noqa: S607
        subprocess.run(apt, check=False)  # noqa: S603
    if not wrk_path():
        raise BenchError("Could not install wrk (apt-get install -y wrk).")


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


def targets(
    runs: list[dict], scales: list[dict], args: argparse.Namespace
) -> list[dict]:
    """Check every target; return [{target, status, failures}]."""

    def pages():
        for run in runs:
            for name, page in run["pages"].items():
                yield f"{run['database']}/{run['posts']} {name}", name, page

    checks: list[tuple[str, list[str] | None]] = []
    checks.append(
        (
            f"cached rps >= {CACHED_VS_STATIC:.0%} of the static floor, every page type",
            [
                f"{where}: {page['ratio']:.2f}"
                for where, _, page in pages()
                if page["ratio"] < CACHED_VS_STATIC
            ],
        )
    )
    checks.append(
        (
            f"render p50 < {RENDER_LISTING_MS:g} ms (listing pages), "
            f"< {RENDER_POST_MS:g} ms (math-heavy post); page cache off",
            [
                f"{where}: {page['render_ms']['p50']} ms"
                for where, name, page in pages()
                if page["render_ms"]["p50"]
                >= (RENDER_POST_MS if name == POST_PAGE else RENDER_LISTING_MS)
            ],
        )
    )
    if scales:
        label = ", ".join(f"{s['large']} vs {s['small']}" for s in scales)
        checks.append(
            (
                f"render p50 of the largest size within {SCALING}x of the smallest "
                f"({label})",
                [
                    f"{s['database']} {name}: {ratio}x"
                    for s in scales
                    for name, ratio in s["render_p50_ratio"].items()
                    if ratio > SCALING
                ],
            )
        )
    else:
        checks.append((f"render p50 scaling within {SCALING}x (needs 2 sizes)", None))
    checks.append(
        (
            f"worker RSS < {MAX_RSS_MB:g} MB",
            [
                f"{run['database']}/{run['posts']} {server}: {mb} MB"
                for run in runs
                for server, sizes in run["worker_rss_mb"].items()
                for mb in sizes
                if mb >= MAX_RSS_MB
            ],
        )
    )
    if args.import_posts:
        limit = IMPORT_SECONDS_PER_200 * args.import_posts / 200
        checks.append(
            (
                f"import of {args.import_posts} posts < {limit:g} s",
                [
                    f"{run['database']}/{run['posts']}: "
                    + (imported.get("error") or f"{imported['seconds']} s")
                    for run in runs
                    if (imported := run["import"])
                    and ("error" in imported or imported["seconds"] >= limit)
                ],
            )
        )
    checks.append(
        (
            f"queries <= {MAX_QUERIES} per page",
            [
                f"{where}: {page['queries']}"
                for where, _, page in pages()
                if page["queries"] > MAX_QUERIES
            ],
        )
    )
    return [
        {
            "target": target,
            "status": "SKIP" if failures is None else "FAIL" if failures else "PASS",
            "failures": failures or [],
        }
        for target, failures in checks
    ]


def print_report(results: dict) -> None:
    columns = (
        ("page", 10, "<"),
        ("queries", 7, ">"),
        ("p50 ms", 7, ">"),
        ("p95 ms", 7, ">"),
        ("mixed p50", 9, ">"),
        ("cached rps", 10, ">"),
        ("static rps", 10, ">"),
        ("ratio", 5, ">"),
        ("page br", 8, ">"),
        ("css+js br", 9, ">"),
    )
    header = "  ".join(f"{title:{align}{width}}" for title, width, align in columns)
    for run in results["runs"]:
        say(f"\n{run['database']} · {run['posts']:,} posts")
        say(header)
        for name, page in run["pages"].items():
            cells = (
                name,
                page["queries"],
                f"{page['render_ms']['p50']:.1f}",
                f"{page['render_ms']['p95']:.1f}",
                f"{page['mixed_ms']['p50']:.1f}",
                f"{page['cached']['rps']:.0f}",
                f"{page['static']['rps']:.0f}",
                f"{page['ratio']:.2f}",
                kib(page["weight"]["html_bytes"]),
                kib(page["weight"]["assets_bytes"]),
            )
            say(
                "  ".join(
                    f"{cell:{align}{width}}"
                    for cell, (_, width, align) in zip(cells, columns, strict=True)
                )
            )
        rss = "; ".join(
            f"{server} {' / '.join(f'{mb:.0f}' for mb in sizes)} MB"
            for server, sizes in run["worker_rss_mb"].items()
        )
        say(f"worker RSS: {rss}")
        if run["import"] and "error" in run["import"]:
            say(f"import_markdown failed: {run['import']['error']}")
        elif run["import"]:
            imported = run["import"]
            say(
                f"import_markdown: {imported['posts']} posts of "
                f"~{imported['chars_per_post']:,} chars in {imported['seconds']} s "
                f"({imported['posts_per_second']} posts/s)"
            )
        warnings = [
            f"{name}: page cache {page['page_cache']}"
            for name, page in run["pages"].items()
            if page["page_cache"] != "hit"
        ] + [
            f"{name} {kind}: {page[kind]['errors']} socket errors, "
            f"{page[kind]['non_2xx']} non-2xx"
            for name, page in run["pages"].items()
            for kind in ("cached", "static")
            if page[kind]["errors"] or page[kind]["non_2xx"]
        ]
        for warning in warnings:
            say(f"warning: {warning}")
    for comparison in results["scaling"]:
        print_comparison(comparison)
    say("\nTargets")
    for target in results["targets"]:
        say(f"  {target['status']}  {target['target']}")
        for failure in target["failures"]:
            say(f"          {failure}")
    say(f"\nResults: {RESULTS.relative_to(ROOT)}")


def print_comparison(comparison: dict) -> None:
    """Print the render p50 of both sizes timed in turns, and their ratio."""
    small, large = f"{comparison['small']:,}", f"{comparison['large']:,}"
    say(f"\n{comparison['database']} · {small} and {large} posts in turns")
    say(f"{'page':<12}  {small + ' p50':>12}  {large + ' p50':>12}  {'ratio':>6}")
    for name, page in comparison["render_ms"].items():
        say(
            f"{name:<12}  {page['small_ms']['p50']:>12.1f}  "
            f"{page['large_ms']['p50']:>12.1f}  {page['ratio']:>5.2f}x"
        )


def kib(size: int) -> str:
    return f"{size / 1024:.1f} kB"


def machine() -> dict:
    wrk_version = subprocess.run(  # noqa: S603
        [wrk_path() or "wrk", "--version"], capture_output=True, text=True, check=False
    ).stdout.split("\n")[0]
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "wrk": wrk_version.strip(),
    }


def terminate(signum: int, frame: object) -> None:
    """Turn SIGTERM into SystemExit, so that servers and databases are cleaned up."""
    raise SystemExit(128 + signum)


def main() -> int:
    args = parse_args()
    signal.signal(signal.SIGTERM, terminate)
    BENCH.mkdir(exist_ok=True)
    results: dict = {
        "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "settings": {
            key: value for key, value in vars(args).items() if key != "postgres_url"
        },
        "runs": [],
        "scaling": [],
    }
    try:
        ensure_wrk()
        results["machine"] = machine()
        say("collectstatic …")
        env = bench_env("sqlite:///unused", BENCH)
        step(
            "collectstatic",
            [PYTHON, "manage.py", "collectstatic", "--noinput"],
            env,
            BENCH,
        )
        for kind in args.databases:
            runs, comparison = bench_database_sizes(kind, args)
            results["runs"] += runs
            if comparison:
                results["scaling"].append(comparison)
    # BenchError, and what the servers and wrk raise when they fail.
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        say(f"\nThe benchmark could not run: {error}")
        return 1
    except KeyboardInterrupt:
        say("\nInterrupted.")
        return 130
    finally:
        shutil.rmtree(STATIC_BENCH, ignore_errors=True)
    results["targets"] = targets(results["runs"], results["scaling"], args)
    results["finished"] = (
        datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    )
    RESULTS.write_text(json.dumps(results, ensure_ascii=False, indent=2))
    print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
