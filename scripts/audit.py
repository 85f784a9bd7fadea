"""Lighthouse on the demo blog: performance, accessibility, best practices, SEO.

Starts gunicorn with the production settings on a throwaway SQLite database
with the demo content (static files collected and compressed, as deployed),
runs Lighthouse (npm `lighthouse`, pinned in package.json) with the system
Chromium on the home page and the longest math post, prints the four scores per
page and stops the server. Reports go to test-artifacts/lighthouse/.

    make audit                       # or: .venv/bin/python scripts/audit.py
    .venv/bin/python scripts/audit.py --min-score 90   # exit 1 below 90
"""

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.support.pages import HOME, MATH_POST  # noqa: E402
from scripts.support.servers import DemoServer  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
REPORTS = ROOT / "test-artifacts" / "lighthouse"
AUDITED = (HOME, MATH_POST)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


def lighthouse(url: str, name: str) -> dict[str, int]:
    """Run Lighthouse on `url`; return {category: score out of 100}."""
    output = REPORTS / name
    command = [
        str(LIGHTHOUSE),
        url,
        f"--chrome-path={CHROMIUM}",
        f"--chrome-flags={CHROMIUM_FLAGS}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        "--output=html",
        f"--output-path={output}",
        "--quiet",
    ]
    # Lighthouse sometimes fails to record the trace of a page load on this
    # machine ("NO_NAVSTART"), and asks to be run again: so do that, once.
    for attempt in (1, 2):
        done = subprocess.run(  # noqa: S603
            command,
            cwd=ROOT,
            env={**os.environ, "CHROME_PATH": CHROMIUM},
            check=attempt == 2,
            timeout=300,
        )
        if done.returncode == 0:
            break
        say(f"Lighthouse failed on {url}; running it again.")
    report = json.loads(output.with_suffix(".report.json").read_text())
    scores = {
        category: round((report["categories"][category]["score"] or 0) * 100)
        for category in CATEGORIES
    }
    failing = [
        f"    {audit['id']}: {audit['title']}"
        for audit in report["audits"].values()
        if audit.get("score") is not None
        and audit["score"] < 1
        and audit.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")
    ]
    if failing:
        say(f"{name}: audits below full marks:\n" + "\n".join(failing))
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--min-score",
        type=int,
        default=0,
        help="exit 1 when any score is below this (0 to 100; default 0: report only)",
    )
    args = parser.parse_args()
    for need, hint in ((LIGHTHOUSE, "run `make install`"), (Path(CHROMIUM), "")):
        if not need.exists() and not shutil.which(str(need)):
            say(f"{need} is missing. {hint or 'apt-get install -y chromium'}")
            return 2
    REPORTS.mkdir(parents=True, exist_ok=True)

    env = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": "sqlite:///unused",  # audit_settings replaces it
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",  # plain HTTP on 127.0.0.1
        "SECURE_HSTS_SECONDS": "0",
        # The demo's renditions and renders made as it is loaded, as a task
        # worker would have made them by the time readers come.
        "TASKS_BACKEND": "django_tasks.backends.immediate.ImmediateBackend",
    }
    results = {}
    with DemoServer(
        "scripts.support.audit_settings", env=env, collectstatic=True, workers=2
    ) as server:
        for page in AUDITED:
            results[page] = lighthouse(server.url + page.path, page.name)

    width = max(len(page.path) for page in AUDITED)
    say(f"\n{'page':<{width}}  " + "  ".join(f"{c:>14}" for c in CATEGORIES))
    for page, scores in results.items():
        say(
            f"{page.path:<{width}}  "
            + "  ".join(f"{scores[c]:>14}" for c in CATEGORIES)
        )
    say(f"\nReports: {REPORTS.relative_to(ROOT)}/*.report.html")
    low = [
        s for scores in results.values() for s in scores.values() if s < args.min_score
    ]
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
