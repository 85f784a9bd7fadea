"""What a web process loads as it starts: the site, not the tools it seldom needs.

A web worker serves pages rendered ahead (by the task workers, kept in the
render cache); the vault importer's parser and emoji's tables (8 MB) are
loaded by the first Markdown paste or render that needs them. `make bench`
prints a worker's resident memory against its 200 MB target.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOADED = """
import json, sys
from config.wsgi import application
from django.test import Client
before = sorted(name for name in NAMES if name in sys.modules)
Client(raise_request_exception=False).get("/")  # a page asked for, as a worker's first request
after = sorted(name for name in NAMES if name in sys.modules)
print(json.dumps({"before": before, "after": after}))
"""


def loaded_by_a_web_process(*names: str) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", f"NAMES = {names!r}" + LOADED],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_web_process_loads_neither_the_importer_nor_emoji_tables():
    # rendering.markdown is the control: loaded at start, so the check looks.
    names = ("rendering.markdown", "vault.importer", "vault.paste", "emoji")
    loaded = loaded_by_a_web_process(*names)
    assert loaded["before"] == ["rendering.markdown"]
    assert loaded["after"] == ["rendering.markdown"]
