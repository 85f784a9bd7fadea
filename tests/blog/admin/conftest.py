"""The section editors write in (the people who write: tests/conftest.py)."""

import pytest

from tests.factories import SeriesPageFactory


@pytest.fixture
def series(home):
    return SeriesPageFactory(parent=home, title="CUDA", slug="cuda")
