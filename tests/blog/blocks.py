"""Values and helpers the block tests share."""

import json

import pytest
from bs4 import BeautifulSoup
from django.core.exceptions import ValidationError
from wagtail.blocks.base import get_error_json_data
from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed

from blog.blocks import (
    CodeBlock,
)

VIDEO_URL = "https://www.youtube.com/watch?v=x"
VIDEO_HTML = '<iframe src="https://www.youtube-nocookie.com/embed/x"></iframe>'

VECTOR_ADD = (
    "__global__ void add(const float* a, float* c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] += a[i];\n"
    "}"
)


def soup(html):
    return BeautifulSoup(html, "html.parser")


def error_text(error: ValidationError) -> str:
    """Return every message of a block error (nested ones included) as one string."""
    return json.dumps(get_error_json_data(error), ensure_ascii=False)


def heading_html(level: str, anchor: str, text_html: str) -> str:
    return (
        f'<{level} id="{anchor}" class="heading">{text_html}'
        f'<a class="heading-anchor" href="#{anchor}" aria-label="链接到本节">#</a>'
        f"</{level}>"
    )


def code_value(**overrides):
    raw = {
        "language": "cuda",
        "filename": "add.cu",
        "code": VECTOR_ADD,
        "highlight_lines": "",
        "line_numbers": True,
    }
    return CodeBlock().to_python({**raw, **overrides})


def add_embed(url: str, html: str) -> Embed:
    """Store an oEmbed result, so rendering reads it instead of the network."""
    return Embed.objects.create(
        url=url,
        hash=get_embed_hash(url),
        type="video",
        html=html,
        title="Video",
        provider_name="YouTube",
        width=560,
        height=315,
    )


@pytest.fixture(autouse=True)
def no_oembed_requests(monkeypatch):
    """Fail loudly instead of asking an oEmbed provider over the network."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"tests must not fetch oEmbed for {url}")

    monkeypatch.setattr("wagtail.embeds.embeds.get_finder_for_embed", refuse)
