"""`make bench-puput`: our post page against puput 2.2's, side by side, 1,000 posts each.

What is compared: the page of one long post, ours and puput's (the Wagtail
blog app from PyPI), each on a site of 1,000 posts in SQLite, each served by
gunicorn with 2 sync workers and no page cache. Ours is `make bench`'s site
(scripts/bench/site.py, reused from .bench/sqlite-1000/ when it is there and
of that size) with the production settings, PAGE_CACHE_SECONDS=0 and a warm
render cache; the post is its math-heavy one (~300 formulas, ~50 code blocks).
puput's (scripts/bench/puput_site/) runs in its own virtualenv under
.bench/puput/ (scripts/bench/puput-requirements.txt; rebuilt when that file
changes), set up as its documentation says, DEBUG off; its 1,000 entries are
made from the same generator and seed, the measured one carrying the same
post's text (formulas as their TeX source, code in <pre><code>: puput
typesets neither), with a category and three tags each.

Both pages are first checked (status 200, the post's title in the HTML), then
warmed, then measured while both servers run:

- render p50/p95: gunicorn's own time per request, one request at a time,
  the two servers asked in turns, so that whatever else the machine does
  slows both alike;
- throughput: wrk at the same concurrency against each, back to back, in
  rounds that alternate which goes first; each round gives a ratio, and the
  target reads their median, so that a busy spell weighs on both sides of
  a ratio alike (skipped when wrk is missing: the target is then judged on
  the p50 ratio, and says so).

The table ends with `target: post page at least 5× puput's throughput`, PASS
or FAIL; everything goes to .bench/puput/results.json. Exit status: 0 PASS,
1 FAIL, 2 when the benchmark could not run.

    make bench-puput                                    # 1,000 posts each
    make bench-puput BENCH_PUPUT_ARGS="--posts 200 --duration 3 --rounds 3"
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.bench.load import (  # noqa: E402
    fetch,
    times_in_turns,
    warm_up,
    wrk_path,
)
from scripts.bench.load import wrk as load_wrk  # noqa: E402
from scripts.bench.measure import (  # noqa: E402
    BENCH,
    DROPPED_ENV,
    PYTHON,
    SECRET_KEY,
    SITE,
    BenchError,
    Phases,
    bench_database,
    bench_env,
    say,
    step,
)
from scripts.bench.server import Gunicorn  # noqa: E402
from scripts.support.servers import collect_static  # noqa: E402

PUPUT = BENCH / "puput"
VENV = PUPUT / "venv"
VENV_PYTHON = VENV / "bin" / "python"
REQUIREMENTS = ROOT / "scripts" / "bench" / "puput-requirements.txt"
# The digest of the requirements the virtualenv was built from.
STAMP = VENV / ".requirements-sha256"
PUPUT_SETTINGS = "scripts.bench.puput_site.settings"
# What the puput blog is made from: a change to one rebuilds it.
SITE_SOURCES = (
    ROOT / "scripts" / "bench" / "content.py",
    ROOT / "scripts" / "bench" / "puput_site" / "generate.py",
    ROOT / "scripts" / "bench" / "puput_site" / "settings.py",
)
PUPUT_DATABASE = PUPUT / "db.sqlite3"
RESULTS = PUPUT / "results.json"
TARGET = 5.0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--posts", type=int, default=1000, help="posts of each site")
    parser.add_argument(
        "--duration",
        type=float,
        default=10.0,
        help="seconds of the timing in turns, and of each wrk run",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="wrk runs against each, alternating"
    )
    parser.add_argument("--connections", type=int, default=8, help="wrk connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--seed", type=int, default=1, help="of both sites' content")
    args = parser.parse_args()
    if args.posts < 10:
        parser.error("--posts: at least 10")
    if args.rounds < 1:
        parser.error("--rounds: at least 1")
    if args.threads > args.connections:
        parser.error("--threads cannot exceed --connections")
    return args


class PuputGunicorn(Gunicorn):
    """gunicorn of puput's virtualenv serving the puput blog; timed as ours is."""

    executable = VENV / "bin" / "gunicorn"
    application = "scripts.bench.puput_site.wsgi"


def digest(*paths: Path) -> str:
    """Return the SHA-256 of the files' contents, one after another."""
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.read_bytes())
    return sha.hexdigest()


def ensure_venv() -> None:
    """Build puput's virtualenv from the pinned requirements, unless already built."""
    if STAMP.exists() and STAMP.read_text() == digest(REQUIREMENTS):
        return
    say("puput's virtualenv (.bench/puput/venv) …")
    shutil.rmtree(VENV, ignore_errors=True)
    PUPUT.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    step("venv", ["python3", "-m", "venv", str(VENV)], env, PUPUT)
    argv = [str(VENV_PYTHON), "-m", "pip", "install", "--quiet"]
    step("pip", [*argv, "-r", str(REQUIREMENTS)], env, PUPUT)
    STAMP.write_text(digest(REQUIREMENTS))


def puput_env() -> dict[str, str]:
    """Return the environment of puput's settings on its bench database."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DJANGO_SETTINGS_MODULE=PUPUT_SETTINGS,
        PUPUT_DATABASE=str(PUPUT_DATABASE),
        SECRET_KEY=SECRET_KEY,
        PYTHONPATH=str(ROOT),
    )
    return env


def manifest_if(path: Path, **expected: object) -> dict | None:
    """Return the manifest at `path` if it says what `expected` says, else None."""
    if not path.exists():
        return None
    manifest = json.loads(path.read_text())
    if any(manifest.get(key) != value for key, value in expected.items()):
        return None
    return manifest


def migrated(env: dict[str, str], folder: Path) -> bool:
    """Return whether the database has every migration of this checkout."""
    try:
        step("migrate-check", [PYTHON, "manage.py", "migrate", "--check"], env, folder)
    except BenchError:
        return False
    return True


def our_site(args: argparse.Namespace, url: str, folder: Path) -> dict:
    """Build our bench site of `args.posts` posts, or reuse `make bench`'s; return its manifest.

    A site is reused when its manifest has the size, nothing was imported into
    it, and its database has every migration of this checkout.
    """
    manifest_path = folder / "site.json"
    env = bench_env(url, folder)
    manifest = manifest_if(manifest_path, posts=args.posts)
    if manifest and not (folder / "import").exists() and migrated(env, folder):
        say(f"  reusing {folder.relative_to(ROOT)}/")
        return manifest
    say(f"  building our {args.posts}-post site in {folder.relative_to(ROOT)}/ …")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    step("migrate", [PYTHON, "manage.py", "migrate", "--noinput"], env, folder)
    argv = [PYTHON, str(SITE), "generate", f"--posts={args.posts}"]
    argv += [f"--seed={args.seed}", f"--manifest={manifest_path}"]
    sys.stdout.write(step("generate", argv, env, folder))
    return json.loads(manifest_path.read_text())


def puput_site(args: argparse.Namespace, env: dict[str, str]) -> dict:
    """Build the puput blog, or reuse it if made alike; return its manifest."""
    manifest_path = PUPUT / "site.json"
    built_from = digest(REQUIREMENTS, *SITE_SOURCES)
    manifest = manifest_if(
        manifest_path, posts=args.posts, seed=args.seed, built_from=built_from
    )
    if manifest and PUPUT_DATABASE.exists():
        say(f"  reusing {PUPUT_DATABASE.relative_to(ROOT)}")
        return manifest
    say(f"  building the {args.posts}-entry puput blog in {PUPUT.relative_to(ROOT)}/ …")
    manifest_path.unlink(missing_ok=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        PUPUT_DATABASE.with_name(PUPUT_DATABASE.name + suffix).unlink(missing_ok=True)
    python = str(VENV_PYTHON)
    step("puput-migrate", [python, "-m", "django", "migrate", "--noinput"], env, PUPUT)
    argv = [python, "-m", "scripts.bench.puput_site.generate"]
    argv += [f"--posts={args.posts}", f"--seed={args.seed}"]
    argv += [f"--manifest={manifest_path}"]
    sys.stdout.write(step("puput-generate", argv, env, PUPUT))
    manifest = json.loads(manifest_path.read_text())
    manifest["built_from"] = built_from
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2))
    return manifest


def check_page(url: str, expect: list[str]) -> dict:
    """Fetch the page as sent uncompressed; raise unless it is a 200 showing `expect`."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310
            html = response.read().decode()
            page_cache = response.headers.get("X-Page-Cache", "")
    except urllib.error.HTTPError as error:
        raise BenchError(f"{url} answered {error.code}") from error
    missing = [want for want in expect if want not in html]
    if missing:
        raise BenchError(f"{url} does not show: {'; '.join(missing)}")
    if page_cache == "hit":
        raise BenchError(f"{url} came from the page cache, which should be off")
    sent = fetch(url)  # as a browser asks for it (Brotli, gzip)
    return {
        "url": url,
        "html_bytes": len(html.encode()),
        "bytes_sent": len(sent.body),
        "encoding": sent.headers.get("content-encoding", ""),
    }


def wrk(url: str, args: argparse.Namespace) -> dict:
    """Load `url` with wrk (scripts/bench/load.py); an answer not 2xx fails the bench."""
    try:
        run = load_wrk(
            url,
            duration=args.duration,
            connections=args.connections,
            threads=args.threads,
        )
    except (RuntimeError, subprocess.SubprocessError) as error:
        raise BenchError(f"wrk could not load {url}: {error}") from error
    if run["non_2xx"]:
        raise BenchError(f"{url}: {run['non_2xx']} answers not 2xx under wrk")
    return run


def measure(
    sides: dict[str, tuple[Gunicorn, str]], args: argparse.Namespace
) -> dict[str, dict]:
    """Time both pages in turns, then wrk each in alternating rounds."""
    figures = {}
    for _, url in sides.values():
        warm_up(url, parallel=2 * args.workers, budget=args.duration)
    say(f"  render times, in turns, {args.duration:g} s …")
    times = times_in_turns(list(sides.values()), args.duration)
    for name, render_ms in zip(sides, times, strict=True):
        figures[name] = {"render_ms": render_ms, "wrk": []}
    if not wrk_path():
        say("  wrk is missing (apt-get install -y wrk): throughput not measured")
        return figures
    say(f"  throughput, wrk, {args.rounds} round(s) of {args.duration:g} s each …")
    for number in range(args.rounds):
        order = list(sides.items())
        for name, (_, url) in order[::-1] if number % 2 else order:
            figures[name]["wrk"].append(wrk(url, args))
    for figure in figures.values():
        figure["rps"] = statistics.median(run["rps"] for run in figure["wrk"])
    return figures


def verdict(ours: dict, puput: dict) -> dict:
    """Judge the target on throughput, or on the p50 ratio without wrk."""
    if "rps" in ours:
        rounds = [
            mine["rps"] / max(theirs["rps"], 0.01)
            for mine, theirs in zip(ours["wrk"], puput["wrk"], strict=True)
        ]
        ratio = statistics.median(rounds)
        basis = f"wrk throughput, median of {len(rounds)} rounds' ratios: " + ", ".join(
            f"{r:.2f}" for r in rounds
        )
    else:
        ratio = puput["render_ms"]["p50"] / max(ours["render_ms"]["p50"], 0.01)
        basis = "render p50, wrk missing: the inverse ratio of time per request"
    return {
        "target": f"post page at least {TARGET:g}× puput's throughput",
        "ratio": round(ratio, 2),
        "basis": basis,
        "status": "PASS" if ratio >= TARGET else "FAIL",
    }


def print_report(results: dict) -> None:
    ours, puput = results["ours"], results["puput"]

    def row(
        label: str,
        mine: float | None,
        theirs: float | None,
        ratio: float | None = None,
    ) -> None:
        if mine is None or theirs is None:
            return
        if ratio is None:
            ratio = mine / theirs if theirs else float("inf")
        say(f"  {label:<36} {mine:>10.1f} {theirs:>10.1f} {ratio:>11.2f}")

    settings = results["settings"]
    say(
        f"\npost page, {settings['posts']} posts each, page cache off, "
        f"{settings['workers']} gunicorn workers each"
    )
    say(f"  {'':<36} {'ours':>10} {'puput':>10} {'ours/puput':>11}")
    row(
        "render p50 (ms, in turns)", ours["render_ms"]["p50"], puput["render_ms"]["p50"]
    )
    row(
        "render p95 (ms, in turns)", ours["render_ms"]["p95"], puput["render_ms"]["p95"]
    )
    # Each side's median, and the median of the rounds' ratios (the target's).
    row(
        f"throughput (rps, wrk -c{settings['connections']})",
        ours.get("rps"),
        puput.get("rps"),
        results["target"]["ratio"],
    )
    row(
        "HTML (kB, uncompressed)", ours["html_bytes"] / 1024, puput["html_bytes"] / 1024
    )
    row(
        "bytes sent (kB, as negotiated)",
        ours["bytes_sent"] / 1024,
        puput["bytes_sent"] / 1024,
    )
    load = results["machine"]["load_average"]
    say(f"  load average before and after: {load['before']} / {load['after']}")
    target = results["target"]
    say(
        f"\ntarget: {target['target']}: {target['status']} "
        f"({target['ratio']:g}×, on {target['basis']})"
    )


def terminate(signum: int, frame: object) -> None:
    """Turn SIGTERM into SystemExit, so that the servers are stopped."""
    raise SystemExit(128 + signum)


def run(args: argparse.Namespace, results: dict) -> None:
    phase = Phases(results["phases_seconds"])
    folder = BENCH / f"sqlite-{args.posts}"
    with phase("venv"):
        ensure_venv()
    with bench_database("sqlite", args.posts, folder, "") as url:
        say("\n== our site")
        with phase("ours"):
            ours_manifest = our_site(args, url, folder)
            collect_static(bench_env(url, folder))
        say("\n== puput")
        env = puput_env()
        with phase("puput"):
            puput_manifest = puput_site(args, env)
        ours_page = ours_manifest["pages"]["post"]
        puput_page = puput_manifest["post"]
        say("\n== both served, page cache off")
        with (
            phase("measure"),
            Gunicorn(
                bench_env(url, folder, PAGE_CACHE_SECONDS="0"),
                PUPUT,
                name="ours",
                workers=args.workers,
            ) as ours,
            PuputGunicorn(env, PUPUT, name="puput", workers=args.workers) as puput,
        ):
            sides = {
                "ours": (ours, ours.url + ours_page["url"]),
                "puput": (puput, puput.url + puput_page["url"]),
            }
            pages = {
                "ours": check_page(sides["ours"][1], ours_page["expect"]),
                "puput": check_page(sides["puput"][1], puput_page["expect"]),
            }
            say(
                "  both pages answer 200 with the post's title: "
                + ", ".join(page["url"] for page in pages.values())
            )
            figures = measure(sides, args)
    for name in ("ours", "puput"):
        results[name] = {**pages[name], **figures[name]}
    results["puput"]["body_chars"] = puput_page["body_chars"]


def main() -> int:
    args = parse_args()
    signal.signal(signal.SIGTERM, terminate)
    PUPUT.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "settings": vars(args),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average": {"before": [round(x, 2) for x in os.getloadavg()]},
        },
        "puput_requirements": [
            line
            for line in REQUIREMENTS.read_text().splitlines()
            if line and not line.startswith("#")
        ],
        "phases_seconds": {},
    }
    started = time.perf_counter()
    try:
        run(args, results)
    # BenchError, and what the servers and wrk raise when they fail.
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        say(f"\nThe benchmark could not run: {error}")
        return 2
    except KeyboardInterrupt:
        say("\nInterrupted.")
        return 130
    results["machine"]["load_average"]["after"] = [round(x, 2) for x in os.getloadavg()]
    results["target"] = verdict(results["ours"], results["puput"])
    results["finished"] = (
        datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    )
    results["seconds"] = round(time.perf_counter() - started)
    RESULTS.write_text(json.dumps(results, ensure_ascii=False, indent=2))
    print_report(results)
    say(f"\n{RESULTS.relative_to(ROOT)}, in {results['seconds']} s")
    return 0 if results["target"]["status"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
