"""A copy of the fixture vaults in tmp_path, with their images drawn by Pillow.

The vaults are text only in the repository: images are generated here, so no
binary file is committed, and each test may change its own copy.
"""

import base64
import random
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


def excalidraw(path: Path, font_bytes: int = 60_000) -> None:
    """Write an SVG as Excalidraw exports one: its hand-drawn font embedded.

    The font is ``font_bytes`` of seeded noise in base64, as large as a real
    export's subset of Virgil (about 80 KB in all).
    """
    noise = random.Random(7).randbytes(font_bytes)  # noqa: S311 - not a secret
    font = base64.b64encode(noise).decode()
    boxes = [
        ("Global memory", 20, 20, "#a5d8ff"),
        ("Shared memory", 20, 130, "#b2f2bb"),
        ("Registers", 20, 240, "#ffec99"),
    ]
    shapes = "\n".join(
        f'<g stroke-linecap="round" transform="translate({x} {y}) rotate(0 160 40)">'
        f'<path d="M4 2 C90 0, 230 3, 316 1 M318 3 C319 30, 317 60, 316 78 '
        f'M315 80 C220 82, 90 79, 2 81 M1 79 C2 50, 0 25, 3 1" stroke="#1e1e1e" '
        f'stroke-width="2" fill="{fill}"></path></g>'
        f'<g transform="translate({x + 40} {y + 28}) rotate(0 100 12.5)">'
        f'<text x="0" y="17.6" font-family="Virgil, Segoe UI Emoji" font-size="20px" '
        f'fill="#1e1e1e" text-anchor="start" style="white-space: pre;" '
        f'direction="ltr" dominant-baseline="alphabetic">{label}</text></g>'
        for label, x, y, fill in boxes
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '<svg version="1.1" xmlns="http://www.w3.org/2000/svg" '
        'viewBox="0 0 380 340" width="380" height="340">\n'
        "<!-- svg-source:excalidraw -->\n<metadata></metadata>\n"
        '<defs><style class="style-fonts">\n'
        '@font-face { font-family: "Virgil"; '
        f'src: url("data:font/woff2;base64,{font}") format("woff2"); }}\n'
        "</style></defs>\n"
        '<rect x="0" y="0" width="380" height="340" fill="#ffffff"></rect>\n'
        f"{shapes}\n</svg>\n",
        "utf-8",
    )


def pdf(path: Path, text: str = "slides") -> None:
    """Write a one-page PDF (its header is what a reader's browser checks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
        + f"% {text}\n".encode()
        + b"trailer << /Root 1 0 R >>\n%%EOF\n"
    )


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


@pytest.fixture
def habits(tmp_path):
    root = tmp_path / "habits"
    shutil.copytree(FIXTURES / "habits", root)
    draw(root / "cuda" / "img" / "vector add.png", (40, 20), (200, 60, 60))
    draw(root / "cuda" / "img" / "warp.png", (30, 30), (60, 200, 60))
    draw(root / "cuda" / "img" / "check errors.png", (20, 40), (60, 60, 200))
    draw(root / "cuda" / "img" / "grid.png", (800, 400), (90, 90, 160))
    excalidraw(root / "cuda" / "img" / "excalidraw-overview.svg")
    pdf(root / "cuda" / "files" / "talk.pdf")
    draw(root / "cuda" / "img" / "avatar.png", (120, 150), (230, 190, 150))
    return root
