"""`make bench-import`: how long `import_markdown` takes on a vault the size of a real blog.

The vault is scripts/make_vault.py's (about 200 posts and 700 PNG figures),
written once under .bench/import/ and reused while its seed and sizes stay
the same. Each round, in fresh SQLite databases with their own media folders:

1. import the vault into an empty site (the time a new user waits), with
   two task workers (`manage.py db_worker`) running beside it as `make run`
   and a deployment have them; then wait until they have emptied the queue
   (every rendition and render the import queued);
2. import it again: nothing may change (every file "unchanged");
3. export the site with `export_markdown`, and import the export into
   another empty site (a restore from backup).

Each step is `manage.py` in a process of its own, timed from start to exit
(the wall time a user sees, Django's start-up included), with its peak
resident memory. The medians over the rounds are printed, and everything
goes to .bench/import/results.json. The targets: the first import under
60 s and 400 MB, and the queue empty within 240 s of the import's start,
for the full vault; on a smaller one (CI's, ``--posts 50 --images 175``) the
times are scaled down with it, never below a floor for Django's start-up.
A missed target prints FAIL and exits 1. `--profile` runs the first import
under cProfile once and prints where the time goes.

    make bench-import                                   # 3 rounds
    make bench-import BENCH_IMPORT_ARGS="--rounds 1 --posts 50 --images 175"
    make bench-import BENCH_IMPORT_ARGS="--rounds 1 --profile"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts import make_vault  # noqa: E402
from scripts.support.servers import TaskWorkers, task_counts  # noqa: E402

PYTHON = sys.executable
WORK = ROOT / ".bench" / "import"
TARGET_SECONDS = 60.0
TARGET_MEGABYTES = 400
TARGET_QUEUE_SECONDS = 240.0
# The vault the targets are for, and the least a scaled-down time target may be.
FULL_POSTS, FULL_IMAGES = 200, 700
FLOOR_SECONDS = 20.0
TASK_WORKERS = 2


class BenchError(RuntimeError):
    """A step failed: the import itself did not run as it must."""


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def site_env(folder: Path) -> dict[str, str]:
    """Return the environment of a site whose database and media live in ``folder``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="scripts.support.import_bench_settings",
        BENCH_SITE_DIR=str(folder),
        PYTHONPATH=str(ROOT),
    )
    return env


def run(name: str, argv: list[str], env: dict[str, str], folder: Path) -> float:
    """Run ``manage.py argv``; return its wall time. Output goes to folder/name.log."""
    return run_measured(name, argv, env, folder)[0]


def run_measured(
    name: str, argv: list[str], env: dict[str, str], folder: Path
) -> tuple[float, float]:
    """Run ``manage.py argv``; return its wall time and peak resident MB."""
    log = folder / f"{name}.log"
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(  # noqa: S603
            [PYTHON, "manage.py", *argv],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        tail = log.read_text()[-3000:]
        raise BenchError(f"{name} failed (exit {process.returncode}):\n{tail}")
    return seconds, usage.ru_maxrss / 1024  # kilobytes on Linux


def fresh_site(folder: Path) -> dict[str, str]:
    """Return the environment of a new, migrated, empty site in ``folder``."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    env = site_env(folder)
    run("migrate", ["migrate", "--noinput"], env, folder)
    return env


def outcomes(log: Path) -> dict[str, tuple[int, int]]:
    """Return {outcome: (posts, series)} from an import's summary table."""
    table = {}
    for line in log.read_text().splitlines():
        match = re.match(r"(created|updated|unchanged|failed)\s+(\d+)\s+(\d+)$", line)
        if match:
            table[match.group(1)] = (int(match.group(2)), int(match.group(3)))
    return table


def warning_kinds(log: Path) -> list[str]:
    """Return the "Warnings by kind" lines of an import's summary."""
    lines = log.read_text().splitlines()
    if "Warnings by kind:" not in lines:
        return []
    start = lines.index("Warnings by kind:") + 1
    return lines[start : lines.index("", start)]


def one_round(vault: Path, number: int, profile: bool) -> dict:
    say(f"== round {number}")
    first = WORK / f"site-{number}"
    env = fresh_site(first)
    argv = ["import_markdown", str(vault), "--no-progress"]
    if profile:
        stats = first / "import.prof"
        argv = ["-m", "cProfile", "-o", str(stats), "manage.py", *argv]
        started = time.perf_counter()
        subprocess.run([PYTHON, *argv], cwd=ROOT, env=env, check=True)  # noqa: S603
        imported = time.perf_counter() - started
        (first / "import.log").write_text("")
        say(f"  import under cProfile: {imported:.1f} s; top 25 by own time:")
        pstats.Stats(str(stats)).sort_stats("tottime").print_stats(25)
        pstats.Stats(str(stats)).sort_stats("cumulative").print_stats(40)
        return {"import_profiled_s": round(imported, 1)}
    started = time.perf_counter()
    with TaskWorkers(env, first, count=TASK_WORKERS, name="worker") as workers:
        imported, peak = run_measured("import", argv, env, first)
        table = outcomes(first / "import.log")
        say(f"  import into an empty site: {imported:.1f} s, {peak:.0f} MB  {table}")
        try:
            workers.wait_until_idle(first / "db.sqlite3", timeout=3600)
        except RuntimeError as error:
            raise BenchError(str(error)) from error
        drained = time.perf_counter() - started
    failed = task_counts(first / "db.sqlite3").get("FAILED", 0)
    say(
        f"  queue empty, {TASK_WORKERS} workers: {drained:.1f} s after the import "
        f"began ({failed} tasks failed)"
    )
    if failed:
        raise BenchError(f"{failed} rendering tasks failed, see {first}/worker-*.log")
    if number == 1:
        for line in warning_kinds(first / "import.log"):
            say(f"    {line.strip()}")
    if table.get("failed", (0, 0)) != (0, 0):
        raise BenchError(f"files failed, see {first / 'import.log'}")

    again = run("reimport", argv, env, first)
    table = outcomes(first / "reimport.log")
    say(f"  the same vault again:      {again:.1f} s  {table}")
    changed = {k: v for k, v in table.items() if k != "unchanged" and v != (0, 0)}
    if changed:
        raise BenchError(f"a second import changed pages: {changed}")

    export = WORK / f"export-{number}"
    if export.exists():
        shutil.rmtree(export)
    exported = run("export", ["export_markdown", str(export)], env, first)
    say(f"  export:                    {exported:.1f} s")
    second = WORK / f"restore-{number}"
    env = fresh_site(second)
    argv = ["import_markdown", str(export), "--no-progress"]
    restored = run("import", argv, env, second)
    table = outcomes(second / "import.log")
    say(f"  import the export:         {restored:.1f} s  {table}")
    return {
        "import_s": round(imported, 1),
        "import_mb": round(peak),
        "queue_empty_s": round(drained, 1),
        "reimport_s": round(again, 1),
        "export_s": round(exported, 1),
        "import_export_s": round(restored, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--images", type=int, default=700)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument(
        "--profile", action="store_true", help="profile one first import instead"
    )
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    vault = WORK / "vault"
    spec = {"posts": args.posts, "images": args.images, "seed": args.seed}
    # Written again when the sizes, the seed or the generator change.
    made_by = hashlib.sha256(Path(make_vault.__file__).read_bytes()).hexdigest()
    wanted = {**spec, "generator": made_by}
    stamp = WORK / "vault.json"
    if not stamp.exists() or json.loads(stamp.read_text()) != wanted:
        say(f"Writing the vault ({args.posts} posts, {args.images} images) …")
        stats = make_vault.write_vault(vault, **spec)
        stamp.write_text(json.dumps(wanted))
        say(f"  {stats}")
    try:
        rounds = [
            one_round(vault, n, args.profile)
            for n in range(1, (1 if args.profile else args.rounds) + 1)
        ]
    except BenchError as error:
        say(f"FAILED: {error}")
        return 1
    if args.profile:
        return 0
    medians = {
        key: round(statistics.median(r[key] for r in rounds), 1) for key in rounds[0]
    }
    say(
        f"\nMedians of {len(rounds)} rounds ({args.posts} posts, {args.images} images):"
    )
    say(f"  import into an empty site  {medians['import_s']:>6.1f} s")
    say(f"  its peak memory            {medians['import_mb']:>6.0f} MB")
    say(f"  queue empty ({TASK_WORKERS} workers)    {medians['queue_empty_s']:>6.1f} s")
    say(f"  the same vault again       {medians['reimport_s']:>6.1f} s")
    say(f"  export                     {medians['export_s']:>6.1f} s")
    say(f"  import the export          {medians['import_export_s']:>6.1f} s")
    import_s = scaled(TARGET_SECONDS, args.posts, args.images)
    queue_s = scaled(TARGET_QUEUE_SECONDS, args.posts, args.images)
    targets = [
        (f"first import under {import_s:.0f} s", medians["import_s"] < import_s),
        (
            f"its peak memory under {TARGET_MEGABYTES} MB",
            medians["import_mb"] < TARGET_MEGABYTES,
        ),
        (
            f"queue empty within {queue_s:.0f} s of the import's start",
            medians["queue_empty_s"] < queue_s,
        ),
    ]
    for label, ok in targets:
        say(f"  target: {label}: {'PASS' if ok else 'FAIL'}")
    (WORK / "results.json").write_text(
        json.dumps({"rounds": rounds, "medians": medians, **spec}, indent=2)
    )
    missed = [label for label, ok in targets if not ok]
    if missed:
        say(f"\nFAIL: {len(missed)} target(s) missed: {'; '.join(missed)}")
        return 1
    return 0


def scaled(seconds: float, posts: int, images: int) -> float:
    """Return a time target for the full vault, scaled to one of this size."""
    share = max(posts / FULL_POSTS, images / FULL_IMAGES)
    return seconds if share >= 1 else max(FLOOR_SECONDS, seconds * share)


if __name__ == "__main__":
    sys.exit(main())
