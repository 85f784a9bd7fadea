"""Social preview images: a 1200×630 PNG per page, drawn with Pillow and cached.

The image shows the page's title (wrapped per character for Chinese, per word
for Latin text), its date and the site name, in a CJK font found through the
``SOCIAL_IMAGE_FONT`` setting or a list of the usual system paths (Debian's
``fonts-noto-cjk`` first). Served at ``/social/<page id>.png``; ``og:image``
points there with a version parameter that changes when the picture would.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import unicodedata
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_safe
from PIL import Image, ImageDraw, ImageFont
from wagtail.models import Page

from blog.models import readable

logger = logging.getLogger(__name__)

WIDTH, HEIGHT = 1200, 630
MARGIN = 80
# Bump when the drawing changes, so cached images are redrawn.
VERSION = 1
CACHE_TIMEOUT = 60 * 60 * 24 * 30
MAX_AGE = 60 * 60 * 24

# Bold first: the title is the picture. Debian/Ubuntu (fonts-noto-cjk), Fedora
# and Arch (google-noto-sans-cjk), WenQuanYi, macOS.
DEFAULT_FONTS = [
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/PingFang.ttc",
]

BACKGROUND = (15, 23, 42)
ACCENT = (56, 189, 248)
TITLE_COLOUR = (241, 245, 249)
MUTED = (148, 163, 184)
TITLE_SIZES = (72, 64, 56, 48)
MAX_TITLE_LINES = 4


def font_candidates() -> list[str]:
    """Return the font paths to try: the setting (a path or list), then defaults."""
    configured = getattr(settings, "SOCIAL_IMAGE_FONT", None) or []
    if isinstance(configured, str | Path):
        configured = [configured]
    return [str(path) for path in configured] + DEFAULT_FONTS


@functools.lru_cache(maxsize=8)
def _face_index(path: str) -> int:
    """Return the face of a font collection to use: Simplified Chinese if any.

    Noto's .ttc holds JP, KR, SC, TC and HK faces; the first (JP) draws some
    characters with Japanese shapes.
    """
    index = 0
    while True:
        try:
            font = ImageFont.truetype(path, 12, index=index)
        except OSError:
            return 0
        if font.getname()[0].endswith(" SC"):
            return index
        index += 1


@functools.lru_cache(maxsize=8)
def find_font_path() -> str | None:
    """Return the first readable font of `font_candidates`, or None."""
    for path in font_candidates():
        if Path(path).is_file():
            return path
    return None


def load_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return the CJK font at ``size``, or Pillow's own font with a warning.

    Pillow's font has no Chinese: titles come out as boxes, so say so loudly.
    """
    path = find_font_path()
    if path is None:
        logger.warning(
            "No CJK font for social images (tried %s); set SOCIAL_IMAGE_FONT or "
            "install fonts-noto-cjk. Chinese titles will show as boxes.",
            ", ".join(font_candidates()),
        )
        return ImageFont.load_default(size)
    return ImageFont.truetype(path, size, index=_face_index(path))


def _is_wide(char: str) -> bool:
    """Return True for characters a line may break before or after (CJK)."""
    return unicodedata.east_asian_width(char) in ("W", "F")


# Line-breaking rules (kinsoku): no line starts with closing punctuation or
# ends with an opening bracket.
_NO_LINE_START = set("，。、：；！？）」』】》〉”’,.;:!?)]}%…")
_NO_LINE_END = set("（「『【《〈“‘([{")


def _tokens(text: str) -> list[str]:
    """Split ``text`` into unbreakable pieces: CJK characters, words, spaces."""
    tokens: list[str] = []
    for char in text:
        previous = tokens[-1][-1] if tokens else " "
        if tokens and (char in _NO_LINE_START or previous in _NO_LINE_END):
            tokens[-1] += char
        elif any(c.isspace() or _is_wide(c) for c in (char, previous)):
            tokens.append(char)
        else:
            tokens[-1] += char
    return tokens


def wrap(text: str, font, width: int) -> list[str]:
    """Return ``text`` broken into lines no wider than ``width`` pixels.

    Chinese breaks between any two characters, Latin text between words; a
    word longer than a line is broken per character.
    """
    lines: list[str] = []
    line = ""
    for token in _tokens(" ".join(text.split())):
        candidate = line + token
        if font.getlength(candidate) <= width:
            line = candidate
            continue
        if line.strip():
            lines.append(line.rstrip())
        line = "" if token.isspace() else token
        while font.getlength(line) > width and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and font.getlength(line[:cut]) > width:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _fit_title(title: str, draw_width: int):
    """Return (font, lines) for the largest title size that fits the lines."""
    for size in TITLE_SIZES:
        font = load_font(size)
        lines = wrap(title, font, draw_width)
        if len(lines) <= MAX_TITLE_LINES:
            return font, lines
    lines = lines[:MAX_TITLE_LINES]
    last = lines[-1]
    while last and font.getlength(last + "…") > draw_width:
        last = last[:-1]
    lines[-1] = last + "…"
    return font, lines


def render_social_image(title: str, site_name: str, subtitle: str = "") -> bytes:
    """Return a 1200×630 PNG with ``title``, ``subtitle`` (a date) and site name."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 16, HEIGHT), fill=ACCENT)
    text_width = WIDTH - 2 * MARGIN

    font, lines = _fit_title(title, text_width)
    line_height = int(font.size * 1.3)
    y = MARGIN + 20
    for line in lines:
        draw.text((MARGIN, y), line, font=font, fill=TITLE_COLOUR)
        y += line_height

    small = load_font(32)
    footer_y = HEIGHT - MARGIN - 32
    draw.line((MARGIN, footer_y - 28, WIDTH - MARGIN, footer_y - 28), fill=MUTED)
    draw.text((MARGIN, footer_y), site_name, font=small, fill=ACCENT)
    if subtitle:
        right = WIDTH - MARGIN - small.getlength(subtitle)
        draw.text((right, footer_y), subtitle, font=small, fill=MUTED)

    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def image_subtitle(page) -> str:
    """Return the line beside the site name: a post's date, else nothing."""
    date = getattr(page, "date", None)
    return f"{date:%Y-%m-%d}" if date else ""


def image_key(page) -> str:
    """Return a hash of everything the page's image shows."""
    parts = [
        VERSION,
        page.pk,
        page.title,
        settings.WAGTAIL_SITE_NAME,
        image_subtitle(page),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def social_image_url(page) -> str | None:
    """Return the image's path; the version changes whenever the picture does.

    None for a page not saved yet (the preview of a new page).
    """
    if page.pk is None:
        return None
    path = reverse("social_image", args=[page.pk])
    return f"{path}?v={image_key(page)}"


@require_safe
def social_image(request, page_id: int):
    """Serve a page's preview image, drawn once and then read from the cache."""
    # A private page's title is not drawn for anyone who asks.
    page = get_object_or_404(readable(Page.objects.live()), pk=page_id).specific
    key = image_key(page)
    etag = f'"{key}"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        cache_key = f"social-image:{key}"
        png = cache.get(cache_key)
        if png is None:
            png = render_social_image(
                page.title, settings.WAGTAIL_SITE_NAME, image_subtitle(page)
            )
            cache.set(cache_key, png, CACHE_TIMEOUT)
        response = HttpResponse(png, content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={MAX_AGE}"
    return response
