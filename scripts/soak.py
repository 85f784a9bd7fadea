"""`make soak`: mixed traffic against gunicorn on PostgreSQL and Redis, then faults.

A fresh PostgreSQL database (`soak_<hex>` on the server DATABASE_URL names,
dropped afterwards) holds the demo blog. gunicorn serves it with the production
settings on a free port of 127.0.0.1, its caches in Redis (REDIS_URL, database
14). Then, on loopback only and bounded in time:

1. cold start: every cache emptied (pages, renders, image renditions) after
   the demo and a post of thousands of formulas were loaded, then the same
   clients as below for `--cold-duration` seconds. Target: no response 5xx,
   none as slow as the worker timeout; reported: each page's first answer.
2. steady: `--clients` concurrent clients for `--duration` seconds. Most read
   pages (home, sections, series, posts, tags, the archive), some search, some
   read feeds, and `--editors` of them log in to the admin and save and
   publish their own post through its edit form, over and over. Targets: no
   response 5xx, every revision an editor saved in the database after, at
   least 120 rps at a p50 of 120 ms or less, and at least 90 % of the answers
   the page cache could give served from it (its X-Page-Cache header).
3. faults (unless `--no-faults`), the same traffic for `--fault-duration`
   seconds while PostgreSQL is restarted, Redis is stopped and started again,
   and a worker is killed with SIGKILL. Reported: the requests that failed
   around each fault, how long the site took to answer again after the
   database came back, and whether gunicorn replaced the worker.

It prints a table and writes .soak/results.json. The exit status is 1 when a
target fails, 2 when the soak itself could not run.

    make soak
    make soak SOAK_ARGS="--duration 20 --no-faults"
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import requests  # noqa: E402

from scripts.bench.server import Gunicorn  # noqa: E402
from scripts.bench.traffic import (  # noqa: E402
    EDITOR_PASSWORD,
    PROXY,
    WORKER_TIMEOUT,
    Log,
    Record,
    SoakError,
    run_clients,
    summary,
)
from scripts.support.servers import (  # noqa: E402
    TaskWorkers,
    fresh_postgres_database,
    manage,
)

FOLDER = ROOT / ".soak"
RESULTS = FOLDER / "results.json"
# The steady phase with its editors, on a 2-core machine (docs/performance.md).
STEADY_RPS = 120
STEADY_P50_MS = 120
STEADY_HIT_RATE = 90
# Display formulas in the soak's long post, typeset only as time allows once
# the caches are emptied (serving/budget.py).
LONG_POST_FORMULAS = 3000
# Pages whose first answer from empty caches is reported whatever it took.
COLD_PAGES = ("/", "/feed/", "/cuda/soak-long/", "/search/?q=GPU")
# How the faults are made: this machine's services (Debian's PostgreSQL
# cluster, a Redis without persistence on 127.0.0.1:6379, as .ci/run starts
# it). Each can be replaced through the environment.
PG_VERSION = next(iter(sorted(p.name for p in Path("/etc/postgresql").glob("*"))), "15")
PG_RESTART = os.environ.get(
    "SOAK_PG_RESTART",
    f"pg_ctlcluster --skip-systemctl-redirect {PG_VERSION} main restart",
)
REDIS_STOP = os.environ.get("SOAK_REDIS_STOP", "redis-cli -h 127.0.0.1 shutdown nosave")
REDIS_START = os.environ.get(
    "SOAK_REDIS_START",
    "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379"
    " --save '' --appendonly no",
)


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main() -> int:
    args = parse_args()
    try:
        results = soak(args)
    except (SoakError, RuntimeError) as error:  # a command or server that failed
        sys.stderr.write(f"soak: {error}\n")
        return 2
    print_results(results)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    say(f"\nResults: {RESULTS.relative_to(ROOT)}")
    return 0 if all(ok for _, ok in results["targets"]) else 1


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="steady seconds")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--editors", type=int, default=2, help="of the clients")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--faults", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--fault-duration", type=float, default=45)
    parser.add_argument(
        "--cold-duration", type=float, default=20, help="seconds from empty caches"
    )
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get(
            "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"
        ),
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    args = parser.parse_args()
    if not args.postgres_url.startswith("postgres"):
        parser.error("the soak runs on PostgreSQL: --postgres-url or DATABASE_URL")
    if not 0 < args.editors < args.clients:
        parser.error("--editors must be at least 1 and fewer than --clients")
    return args


def soak(args) -> dict:
    FOLDER.mkdir(exist_ok=True)
    name = f"soak_{secrets.token_hex(4)}"
    try:
        with fresh_postgres_database(args.postgres_url, name) as database_url:
            return soak_on(args, database_url)
    except psycopg.Error as error:
        raise SoakError(f"PostgreSQL at {args.postgres_url}: {error}") from error


def soak_on(args, database_url: str) -> dict:
    """Run the soak against this fresh database; return its results."""
    env = server_env(args, database_url)
    site = prepare(env, args.editors)
    # The editors build their forms with Wagtail's test helpers, which
    # need Django set up: the same settings as the server's.
    os.environ.update(env)
    import django

    django.setup()
    manage(env, "shell", "-c", EMPTY_CACHES)
    # A task worker beside gunicorn, as deployed: it renders what the
    # editors publish (and what preparing the site queued).
    with (
        TaskWorkers(env, FOLDER, count=1),
        Gunicorn(env, FOLDER, name="soak", workers=args.workers) as server,
    ):
        log, fault_log, cold_log = Log(), Log(), Log()
        say(
            f"soak: cold start, {args.clients} clients for {args.cold_duration:.0f} s …"
        )
        run_clients(server, site, args, args.cold_duration, cold_log)
        cold = {"summary": summary(cold_log.records), "first": first_answers(cold_log)}
        steady = run_phase(server, site, args, args.duration, log)
        faults = run_faults(server, site, args, fault_log) if args.faults else None
        workers_after = len(server.worker_pids())
    saved = log.revisions + fault_log.revisions + cold_log.revisions
    missing = missing_revisions(env, saved)
    return {
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "clients": args.clients,
        "editors": args.editors,
        "workers": args.workers,
        "cold": cold,
        "steady": steady,
        "faults": faults,
        "revisions": {"saved": len(saved), "missing": missing},
        "workers_after": workers_after,
        "targets": targets(cold, steady, faults, missing, args, workers_after),
    }


def server_env(args, database_url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AWS_", "DJANGO_SETTINGS", "PAGE_CACHE", "RENDER_CACHE"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.production",
        PYTHONPATH=str(ROOT),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=database_url,
        REDIS_URL=urlsplit(args.redis_url)._replace(path="/14").geturl(),
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="ERROR",
    )
    return env


SITE_SCRIPT = """
import json, os
from django.contrib.auth import get_user_model
from blog.models import PostPage
from blog.models import SeriesPage
from blog.models.archive import ARCHIVE_PER_PAGE
from taggit.models import Tag

cuda = SeriesPage.objects.get(slug="cuda")
# A post of thousands of formulas: what a cold start must not time out on.
long = PostPage(title="冷启动：很长的推导", slug="soak-long", summary="公式")
long.body = [
    ("math", {"tex": f"a_{{{k}}} = \\frac{{{k}}}{{1+{k}^2}}", "label": ""})
    for k in range(int(os.environ["SOAK_FORMULAS"]))
]
cuda.add_child(instance=long)
long.save_revision().publish()
pages = ["/", "/tags/", "/archive/"]
# The archive's second page where it has one: past its last page, a listing
# shows the last page, not stored under that query (pagecache/query.py).
if PostPage.objects.live().count() > ARCHIVE_PER_PAGE:
    pages.append("/archive/?page=2")
pages += [p.url for p in SeriesPage.objects.live()]
pages += [p.url for p in PostPage.objects.live()]
tags = list(Tag.objects.all()[:20])
pages += [f"/tags/{t.slug}/" for t in tags]
feeds = ["/feed/"] + [f"/tags/{t.slug}/feed/" for t in tags[:5]]
editors = []
for n in range(int(os.environ["SOAK_EDITORS"])):
    name = f"soak-editor-{n}"
    get_user_model().objects.create_superuser(
        name, f"{name}@example.com", os.environ["SOAK_PASSWORD"]
    )
    post = PostPage(title=f"压测文章 {n}", slug=f"soak-{n}", summary="压测")
    cuda.add_child(instance=post)
    post.save_revision().publish()
    editors.append({"username": name, "page": post.pk, "url": post.url})
print(json.dumps({"pages": pages, "feeds": feeds, "editors": editors}))
"""


def prepare(env: dict[str, str], editors: int) -> dict:
    say("soak: migrate, collectstatic, load_demo …")
    manage(env, "migrate", "--noinput", "-v", "0")
    manage(env, "collectstatic", "--noinput", "-v", "0")
    manage(env, "load_demo", "-v", "0")
    env = {
        **env,
        "SOAK_EDITORS": str(editors),
        "SOAK_PASSWORD": EDITOR_PASSWORD,
        "SOAK_FORMULAS": str(LONG_POST_FORMULAS),
    }
    return json.loads(manage(env, "shell", "-c", SITE_SCRIPT).strip().splitlines()[-1])


# Every cache the site fills, emptied: pages and renders (Redis), and the
# renditions of the images (files and rows).
EMPTY_CACHES = """
from django.core.cache import caches
from wagtail.images import get_image_model
for image in get_image_model().objects.all():
    for rendition in image.renditions.all():
        rendition.file.delete(save=False)
        rendition.delete()
for alias in ("default", "renders"):
    caches[alias].clear()
"""


def first_answers(log: Log) -> dict:
    """Return the milliseconds of each page's first answer, and the slowest."""
    first: dict[str, float] = {}
    for record in sorted(log.records, key=lambda r: r.start):
        if record.path and record.path not in first:
            first[record.path] = round(record.ms, 1)
    shown = {p: ms for p, ms in first.items() if p in COLD_PAGES or ms >= 1000}
    return {
        "pages": dict(sorted(shown.items())),
        "slowest_ms": max(r.ms for r in log.records) if log.records else None,
    }


def run_phase(server, site, args, seconds: float, log: Log) -> dict:
    say(f"soak: steady, {args.clients} clients for {seconds:.0f} s …")
    run_clients(server, site, args, seconds, log)
    return summary(log.records)


def run_faults(server, site, args, log: Log) -> dict:
    say(f"soak: faults, the same traffic for {args.fault_duration:.0f} s …")
    events: dict[str, dict] = {}

    def faults():
        time.sleep(5)
        events["postgres restart"] = fault(log, PG_RESTART)
        # Cached pages need no database: /healthz does.
        events["postgres restart"]["answering_again_after_s"] = healthy_after(
            server.url, events["postgres restart"]["done"]
        )
        time.sleep(5)
        events["redis stopped"] = fault(log, REDIS_STOP)
        try:
            time.sleep(8)
        finally:
            events["redis started"] = fault(log, REDIS_START)
        time.sleep(4)
        workers = server.worker_pids()
        os.kill(workers[0], signal.SIGKILL)
        killed = time.monotonic()
        while time.monotonic() - killed < 20:
            pids = server.worker_pids()
            if len(pids) == args.workers and workers[0] not in pids:
                break
            time.sleep(0.1)
        events["worker killed"] = {
            "at": killed,
            "replaced_in_s": round(time.monotonic() - killed, 1),
            "replaced": len(server.worker_pids()) == args.workers,
        }

    run_clients(server, site, args, args.fault_duration, log, during=faults)
    killed_at = events.get("worker killed", {}).get("at")

    def killed(record: Record) -> bool:
        # In flight on the worker SIGKILL took down: that fault's, not another's.
        return killed_at is not None and (
            record.start < killed_at <= record.start + record.ms / 1000
        )

    for name, event in events.items():
        after = [r for r in log.records if r.start >= event["at"]]
        window = [r for r in after if r.start < event["at"] + 10]
        event["failed_in_10_s"] = sum(
            1
            for r in window
            if (r.status == 0 or r.status >= 500)
            and (name == "worker killed" or not killed(r))
        )
        event["requests_in_10_s"] = len(window)
    return {"summary": summary(log.records), "events": events}


def healthy_after(server: str, since: float, limit: float = 30) -> float | None:
    """Return the seconds from ``since`` until /healthz answers 200, or None."""
    while time.monotonic() - since < limit:
        try:
            if requests.get(server + "/healthz", headers=PROXY, timeout=2).ok:
                return round(time.monotonic() - since, 2)
        except requests.RequestException:
            pass
        time.sleep(0.1)
    return None


def fault(log: Log, command: str) -> dict:
    at = time.monotonic()
    argv = shlex.split(command)
    if shutil.which(argv[0]) is None:
        raise SoakError(f"cannot inject the fault: {argv[0]} not found")
    result = subprocess.run(argv, capture_output=True, text=True, check=False)  # noqa: S603
    if result.returncode:
        raise SoakError(f"{command} failed: {result.stderr.strip()}")
    return {"at": at, "done": time.monotonic(), "command": command}


def missing_revisions(env: dict[str, str], revisions: list[tuple[int, str]]) -> list:
    """Return the saved revisions the database does not hold."""
    if not revisions:
        return []
    with psycopg.connect(env["DATABASE_URL"]) as connection:
        rows = connection.execute(
            "SELECT content::text FROM wagtailcore_revision WHERE object_id = ANY(%s)",
            [[str(page) for page, _ in revisions]],
        ).fetchall()
    stored = "\n".join(row[0] for row in rows)
    return [marker for _, marker in revisions if marker not in stored]


def targets(
    cold, steady, faults, missing, args, workers_after
) -> list[tuple[str, bool]]:
    checks = [
        (
            "no 5xx and no failed request from empty caches",
            cold["summary"]["all"]["5xx"] == 0
            and cold["summary"]["all"]["no_response"] == 0,
        ),
        (
            f"every request from empty caches under the {WORKER_TIMEOUT} s timeout",
            (cold["first"]["slowest_ms"] or 0) < WORKER_TIMEOUT * 1000,
        ),
        (
            "no 5xx and no failed request in the steady phase",
            steady["all"]["5xx"] == 0 and steady["all"]["no_response"] == 0,
        ),
        ("every revision saved is in the database", not missing),
        (
            f"steady: at least {STEADY_RPS} rps at p50 <= {STEADY_P50_MS} ms",
            (steady["all"]["rps"] or 0) >= STEADY_RPS
            and (steady["all"]["p50_ms"] or 1e9) <= STEADY_P50_MS,
        ),
        (
            f"steady: page cache hit rate at least {STEADY_HIT_RATE} %",
            (steady["all"]["hit_rate"] or 0) >= STEADY_HIT_RATE,
        ),
        (
            f"at least 60 s at {args.clients} clients",
            args.duration >= 60 and args.clients >= 16,
        ),
    ]
    if faults:
        events = faults["events"]
        restart = events["postgres restart"]
        checks += [
            (
                "/healthz answers 200 within 5 s of PostgreSQL's restart",
                restart.get("answering_again_after_s") is not None
                and restart["answering_again_after_s"] <= 5,
            ),
            (
                "at most a few requests fail around the restart (<= 20)",
                restart["failed_in_10_s"] <= 20,
            ),
            (
                "no request fails while Redis is down",
                events["redis stopped"]["failed_in_10_s"] == 0,
            ),
            (
                "a worker killed with SIGKILL is replaced",
                events["worker killed"]["replaced"] and workers_after == args.workers,
            ),
        ]
    return checks


def print_results(results: dict) -> None:
    def table(title, by_kind):
        say(f"\n{title}")
        say(
            f"{'kind':<8}{'requests':>10}{'5xx':>6}{'failed':>8}{'p50 ms':>9}"
            f"{'p95 ms':>9}{'rps':>8}{'hits %':>8}"
        )
        for kind, row in by_kind.items():
            say(
                f"{kind:<8}{row['requests']:>10}{row['5xx']:>6}{row['no_response']:>8}"
                f"{row['p50_ms'] or '-':>9}{row['p95_ms'] or '-':>9}{row['rps'] or '-':>8}"
                f"{row['hit_rate'] if row['hit_rate'] is not None else '-':>8}"
            )

    cold = results["cold"]
    table("cold start · every cache emptied, the same traffic", cold["summary"])
    say("  first answer of each page (ms):")
    for path, ms in cold["first"]["pages"].items():
        say(f"    {ms:>9}  {path}")
    table(
        f"steady · {results['clients']} clients ({results['editors']} editors), "
        f"{results['workers']} workers",
        results["steady"],
    )
    faults = results["faults"]
    if faults:
        table("faults · the same traffic", faults["summary"])
        for name, event in faults["events"].items():
            extra = ""
            if "answering_again_after_s" in event:
                extra = (
                    f", /healthz 200 again {event['answering_again_after_s']} s after"
                )
            if "replaced_in_s" in event:
                extra = f", replaced in {event['replaced_in_s']} s"
            say(
                f"  {name}: {event['failed_in_10_s']} of {event['requests_in_10_s']} "
                f"requests failed in the next 10 s{extra}"
            )
    revisions = results["revisions"]
    say(
        f"\nrevisions: {revisions['saved']} saved, "
        f"{revisions['saved'] - len(revisions['missing'])} found afterwards"
    )
    say("\nTargets")
    for name, ok in results["targets"]:
        say(f"  {'PASS' if ok else 'FAIL'}  {name}")


if __name__ == "__main__":
    sys.exit(main())
