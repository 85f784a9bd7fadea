"""Assets are ours: KaTeX's CSS and fonts are served at the renderer's version."""

import re
from pathlib import Path
from urllib.parse import urlsplit

from django.contrib.staticfiles import finders

from blog.rendering import katex_version

ROOT = Path(__file__).resolve().parents[2]


def test_katex_css_is_served_at_the_same_version_as_the_renderer():
    css_path = finders.find("katex/katex.min.css")
    assert css_path, "katex/katex.min.css is not among the static files (run `npm ci`)"
    css = Path(css_path).read_text(encoding="utf-8")
    served = re.search(r'\.katex-version::?after\s*\{\s*content:\s*"([^"]+)"', css)
    assert served, "the KaTeX stylesheet no longer declares its version"
    assert served.group(1) == katex_version()


def test_katex_fonts_referenced_by_the_css_are_served():
    css = Path(finders.find("katex/katex.min.css")).read_text(encoding="utf-8")
    fonts = set(re.findall(r"url\((fonts/[^)]+\.woff2)\)", css))
    assert fonts
    for font in fonts:
        assert finders.find(f"katex/{font}"), font


def test_public_pages_name_no_cdn(client, home):
    html = client.get("/").content.decode()
    for url in re.findall(r'(?:href|src)="([^"]+)"', html):
        # Absolute URLs only to this site (canonical, feed links).
        assert urlsplit(url).netloc in ("", "testserver"), url


def test_rendering_imports_no_django():
    for path in (ROOT / "blog" / "rendering").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "import django" not in source and "from django" not in source, path
        assert "blog.models" not in source and "series" not in source, path
