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
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.bench.load import wrk_path  # noqa: E402
from scripts.bench.measure import (  # noqa: E402
    BENCH,
    PYTHON,
    RESULTS,
    STATIC_BENCH,
    BenchError,
    bench_database_sizes,
    bench_env,
    say,
    step,
)
from scripts.bench.report import print_report, targets  # noqa: E402


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
