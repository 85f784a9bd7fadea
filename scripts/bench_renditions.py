"""`make bench-renditions`: what each rendition costs, by format and width.

On a sample of the import benchmark's figures (scripts/make_vault.py: PNG
screenshots and plots of a real vault's sizes), each is encoded the way a
page asks for it (Wagtail's ``Filter``: ``format-<f>|width-<w>``, at the
widths ``picture_widths`` offers it), and the encode time and bytes are
summed per format and width. AVIF is encoded at each libavif speed
``--avif-speeds`` lists (``IMAGE_AVIF_SPEED``, blog/avif.py). The table says
which set of renditions gives readers the fewest bytes for the workers' CPU
(docs/performance.md).

    make bench-renditions                      # 24 figures
    make bench-renditions BENCH_RENDITIONS_ARGS="--sample 8 --avif-speeds 6,8,9"
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.core.files import File  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from PIL import Image as PILImage  # noqa: E402
from wagtail.images import get_image_model  # noqa: E402
from wagtail.images.models import Filter  # noqa: E402

from blog.templatetags.picture_tags import WIDTHS, picture_widths  # noqa: E402
from scripts import make_vault  # noqa: E402

VAULT = ROOT / ".bench" / "import" / "vault"
OTHER_FORMATS = ("webp", "png", "jpeg")


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def figures(sample: int, seed: int) -> list[Path]:
    if not VAULT.exists():
        say("Writing the import benchmark's vault …")
        make_vault.write_vault(VAULT, posts=200, images=700, seed=21)
    found = sorted(VAULT.rglob("*.png"))
    picker = random.Random(seed)  # noqa: S311 - a sample, not a secret
    return picker.sample(found, min(sample, len(found)))


def variants(avif_speeds: list[int]) -> dict[str, tuple[str, dict]]:
    """Return {row label: (format, settings it is encoded with)}."""
    rows = {
        f"avif s{speed}": ("avif", {"IMAGE_AVIF_SPEED": speed}) for speed in avif_speeds
    }
    return rows | {fmt: (fmt, {}) for fmt in OTHER_FORMATS}


def encode(path: Path, spec: str) -> tuple[float, int]:
    """Encode ``path`` as ``spec`` asks; return (seconds, bytes)."""
    with path.open("rb") as handle:
        width, height = PILImage.open(handle).size
        handle.seek(0)
        image = get_image_model()(
            title=path.name,
            width=width,
            height=height,
            file=File(handle, path.name),
            collection_id=1,  # unsaved: no database needed
        )
        output = BytesIO()
        started = time.perf_counter()
        Filter(spec).run(image, output)
        return time.perf_counter() - started, len(output.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--avif-speeds",
        default="6,8",
        help="libavif speeds to encode AVIF at, comma-separated (0 slowest to 10)",
    )
    args = parser.parse_args()
    rows = variants([int(speed) for speed in args.avif_speeds.split(",")])
    paths = figures(args.sample, args.seed)
    sizes = [PILImage.open(p).size for p in paths]
    pixels = statistics.median(w * h for w, h in sizes) / 1e6
    say(
        f"{len(paths)} figures, median {statistics.median(w for w, _ in sizes):.0f} px "
        f"wide, {pixels:.2f} MP, {statistics.median(p.stat().st_size for p in paths) / 1024:.0f} KB"
    )
    seconds = defaultdict(float)
    sizes_out = defaultdict(int)
    counts = defaultdict(int)
    for path in paths:
        width = PILImage.open(path).size[0]
        for label, (fmt, options) in rows.items():
            for w in picture_widths(width):
                with override_settings(**options):
                    took, size = encode(path, f"format-{fmt}|width-{w}")
                for bucket in ((label, w if w in WIDTHS else "orig"), (label, "all")):
                    seconds[bucket] += took
                    sizes_out[bucket] += size
                    counts[bucket] += 1
    say("")
    say("format    width   renditions   encode ms (mean)   KB (mean)")
    for fmt in rows:
        for w in (480, 800, 1200, 1600, "orig", "all"):
            n = counts[(fmt, w)]
            if not n:
                continue
            say(
                f"{fmt:<8}  {w!s:>5}   {n:>10}   {1000 * seconds[(fmt, w)] / n:>16.0f}"
                f"   {sizes_out[(fmt, w)] / n / 1024:>9.1f}"
            )
    say("")
    say("per figure, every width: encode seconds and KB by format")
    for fmt in rows:
        say(
            f"  {fmt:<8} {seconds[(fmt, 'all')] / len(paths):>6.2f} s"
            f"   {sizes_out[(fmt, 'all')] / len(paths) / 1024:>8.1f} KB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
