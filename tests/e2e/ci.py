"""What the checks need from the machine, and where they leave their artifacts.

A check that cannot run here (no Chromium, no Java, no npm packages) is skipped
on a developer's machine; under `CI=true` it fails instead, so CI never passes
on checks that did not run.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI") == "true"
ARTIFACTS = ROOT / "test-artifacts"


def require(condition: bool, reason: str) -> None:
    """Skip the test when `condition` is false; under CI=true, fail it."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this check must run)", pytrace=False)
    pytest.skip(reason)
