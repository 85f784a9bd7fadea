"""A copy of the fixture vaults in tmp_path, with their images drawn by Pillow.

The vaults are text only in the repository: images are generated here, so no
binary file is committed, and each test may change its own copy.
"""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def draw(path: Path, size: tuple[int, int], colour: tuple[int, int, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)


@pytest.fixture
def vault(tmp_path):
    """The main fixture vault: nested series, every block type, images."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURES / "vault", root)
    images = root / "cuda" / "images"
    draw(images / "cover.png", (8, 6), (79, 124, 172))
    draw(images / "smem.png", (6, 4), (200, 80, 40))
    # The same picture under another name: imported once.
    shutil.copy(images / "smem.png", images / "smem-copy.png")
    return root


@pytest.fixture
def broken_vault(tmp_path):
    """Good files beside bad ones: bad LaTeX, invalid UTF-8, a stray front matter line."""
    root = tmp_path / "broken"
    shutil.copytree(FIXTURES / "broken", root)
    (root / "bad-utf8.md").write_bytes(
        b"---\ntitle: Bad bytes\n---\n\nFine line.\nBad \xff\xfe line.\n"
    )
    return root


class ImportRun:
    """The output of one `import_markdown` run."""

    def __init__(self, out: str, err: str, error: CommandError | None) -> None:
        self.out = out
        self.err = err
        self.error = error


@pytest.fixture
def run_import(db):
    """Run `manage.py import_markdown` and return its output and CommandError."""

    def run(*args: str) -> ImportRun:
        out, err = StringIO(), StringIO()
        error = None
        try:
            call_command("import_markdown", *map(str, args), stdout=out, stderr=err)
        except CommandError as exc:
            error = exc
        return ImportRun(out.getvalue(), err.getvalue(), error)

    return run
