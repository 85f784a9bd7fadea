"""Assets are ours, served minified, hashed and compressed; KaTeX's at the renderer's version."""

import gzip
import json
import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import brotli
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client

from rendering import katex_version

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
BUILD = ROOT / "build" / "static"


def minify(outdir: Path) -> None:
    """Run package.json's `minify` script as it is, writing into ``outdir``."""
    script = json.loads((ROOT / "package.json").read_text())["scripts"]["minify"]
    args = shlex.split(script)
    assert args[0] == "esbuild" and "--outdir=build/static" in args
    esbuild = str(ROOT / "node_modules" / ".bin" / "esbuild")
    args = [a if a != "--outdir=build/static" else f"--outdir={outdir}" for a in args]
    subprocess.run([esbuild, *args[1:]], cwd=ROOT, check=True)


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


def test_stylesheets_and_scripts_are_served_as_their_built_minified_copies(tmp_path):
    minify(tmp_path)
    sources = sorted(
        path.relative_to(STATIC).as_posix()
        for path in STATIC.rglob("*")
        if path.suffix in (".css", ".js")
    )
    assert "css/site.css" in sources and "js/site.js" in sources

    for name in sources:
        served = Path(finders.find(name))
        assert served == BUILD / name, f"{name} is not built: run `npm run build`"
        fresh = (tmp_path / name).read_bytes()
        assert served.read_bytes() == fresh, f"{name} changed: run `npm run build`"
        assert len(fresh) < (STATIC / name).stat().st_size, name


def test_a_file_the_build_replaced_is_listed_once_for_collectstatic():
    finder = finders.get_finder("config.staticfiles.FirstCopyFinder")
    listed = [
        storage.path(path)
        for path, storage in finder.list([])
        if path == "css/site.css"
    ]
    assert listed == [str(BUILD / "css" / "site.css")]


def test_public_pages_name_no_cdn(client, home):
    html = client.get("/").content.decode()
    urls = re.findall(r'(?:href|src)="([^"]+)"', html)
    assert any(url.endswith(".css") for url in urls), urls
    for url in urls:
        # Absolute URLs only to this site (canonical, feed links): an unset
        # Wagtail Site stands for WAGTAILADMIN_BASE_URL (testserver here).
        assert urlsplit(url).netloc in ("", "testserver"), url


def test_rendering_imports_no_django():
    paths = list((ROOT / "rendering").rglob("*.py"))
    assert len(paths) > 5
    for path in paths:
        source = path.read_text(encoding="utf-8")
        assert "import django" not in source and "from django" not in source, path
        assert "from blog" not in source and "import blog" not in source, path


def test_collected_static_files_are_hashed_compressed_and_cached_for_a_year(
    tmp_path, settings
):
    # The production storage, over our own files (the admin's are left out to
    # keep the test quick; the same storage compresses them).
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {
            "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        },
    }
    settings.WHITENOISE_USE_FINDERS = False
    settings.WHITENOISE_AUTOREFRESH = False
    ignored = ["admin", "wagtail*", "table_block", "katex"]
    call_command(
        "collectstatic", "--noinput", "-v0", *(f"--ignore={i}" for i in ignored)
    )
    hashed = next(tmp_path.glob("css/site.*.css"))
    assert re.fullmatch(r"site\.[0-9a-f]{12}\.css", hashed.name)
    url = f"/static/css/{hashed.name}"

    brotli_copy = Client().get(url, HTTP_ACCEPT_ENCODING="gzip, br")
    gzip_copy = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
    plain = hashed.read_bytes()
    assert plain == (BUILD / "css" / "site.css").read_bytes(), "the minified copy"

    assert brotli_copy["Content-Encoding"] == "br"
    assert brotli.decompress(b"".join(brotli_copy.streaming_content)) == plain
    assert gzip_copy["Content-Encoding"] == "gzip"
    assert gzip.decompress(b"".join(gzip_copy.streaming_content)) == plain
    assert "max-age=31536000" in brotli_copy["Cache-Control"]
    assert "immutable" in brotli_copy["Cache-Control"]
