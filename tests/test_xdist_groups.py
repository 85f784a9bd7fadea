"""Under `make test` (two xdist workers, `--dist loadgroup`) the page checks share one.

A small project in tmp_path uses the hook of tests/xdist_groups.py, as
tests/conftest.py does: its page checks must all run on one worker, which is
what pytest-xdist's own grouping stopped doing under pytest 9.2.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import os
from pathlib import Path


def test_{n}(request):
    out = Path(__file__).parents[2] / "ran"
    out.mkdir(exist_ok=True)
    name = request.node.nodeid.replace("/", "_").replace(":", "_")
    (out / name).write_text(os.environ["PYTEST_XDIST_WORKER"])
"""


def test_the_page_checks_run_on_one_worker(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(
        "from tests.xdist_groups import pytest_xdist_make_scheduler  # noqa: F401\n"
    )
    for folder in ("tests/e2e", "tests/html", "tests/blog", "tests/search"):
        (tmp_path / folder).mkdir(parents=True)
        for n in range(4):
            name = f"test_{folder.rpartition('/')[2]}_{n}.py"
            (tmp_path / folder / name).write_text(PROBE.format(n=n))
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup"]
        + ["-p", "no:cacheprovider", "-p", "no:django", "-q"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    ran = {path.name: path.read_text() for path in (tmp_path / "ran").iterdir()}
    assert len(ran) == 16
    page_checks = {
        worker
        for name, worker in ran.items()
        if name.startswith(("tests_e2e", "tests_html"))
    }
    assert len(page_checks) == 1, ran
    assert set(ran.values()) == {"gw0", "gw1"}, "the other tests use both workers"
