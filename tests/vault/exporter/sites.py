"""Building the pages an export starts from, and reading what it wrote."""

import datetime
import io
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.files.images import ImageFile
from django.core.management import call_command
from PIL import Image as PILImage
from wagtail.contrib.redirects.models import Redirect
from wagtail.embeds.embeds import get_embed_hash
from wagtail.embeds.models import Embed
from wagtail.images import get_image_model

from blog.models import PostPage, SeriesPage

EMBED_URL = "https://www.youtube.com/watch?v=bDcPmZQwV3g"


@contextmanager
def no_oembed_requests():
    """Fail loudly instead of asking an oEmbed provider over the network."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"tests must not fetch oEmbed for {url}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("wagtail.embeds.embeds.get_finder_for_embed", refuse)
        yield


def add_embed(url: str) -> Embed:
    """Store an oEmbed result, so validation reads it instead of the network."""
    return Embed.objects.create(
        url=url,
        hash=get_embed_hash(url),
        type="video",
        html='<iframe src="https://www.youtube.com/embed/bDcPmZQwV3g"></iframe>',
        title="Video",
        width=560,
        height=315,
    )


def make_image(title: str, color: str, name: str):
    """Return a new image: a small PNG of one colour."""
    buffer = io.BytesIO()
    PILImage.new("RGB", (8, 6), color).save(buffer, format="PNG")
    return get_image_model().objects.create(
        title=title, file=ImageFile(io.BytesIO(buffer.getvalue()), name=name)
    )


def add_post(parent, raw_body, *, live=True, **fields):
    body_block = PostPage._meta.get_field("body").stream_block
    body = body_block.to_python(raw_body)
    body_block.clean(body)
    fields.setdefault("date", datetime.date(2026, 9, 1))
    fields.setdefault("updated", fields["date"])
    tags = fields.pop("tags", ())
    post = PostPage(body=body, live=live, **fields)
    post.tags.add(*tags)
    parent.add_child(instance=post)
    revision = post.save_revision()
    if live:
        revision.publish()
    return post


def add_series(parent, **fields):
    series = SeriesPage(**fields)
    parent.add_child(instance=series)
    series.save_revision().publish()
    return series


# Text that means something in Markdown, in every field that holds text.
TRICKY_BODY = [
    {
        "type": "heading",
        "value": {"text": "Using *ptr, a_b and [x] in C#", "level": "h2"},
    },
    {
        "type": "paragraph",
        "value": "<p># not a heading<br/>1. not a list<br/>- nor this "
        "x<sup>2</sup> H<sub>2</sub>O, \\(a_1\\), &lt;div&gt; &amp;amp; [^1] [[wiki]] "
        "snake_case, __init__, 2 * 3, a*b, ~tilde~, C:\\temp, 中文<b>“引号”</b>中文, "
        "<b>a</b><i>b</i></p>"
        "<ul><li>a</li></ul><ul><li>b</li></ul><p></p>",
    },
    {
        "type": "table",
        "value": {
            "table_caption": "Pipes | and *stars*",
            "table_header_choice": "row",
            "first_row_is_table_header": True,
            "first_col_is_header": False,
            "data": [["a | b", "$|x|$"], ["`code`", "*x*"]],
        },
    },
    {"type": "paragraph", "value": "<p>Table: this is a paragraph, not a caption.</p>"},
    {
        "type": "callout",
        "value": {"kind": "info", "title": "a *b* _c_", "body": "<p>body [x]</p>"},
    },
    {
        "type": "quote",
        "value": {"quote": "<p>— not the source</p><p>text</p>", "source": "A *B*"},
    },
    {
        "type": "code",
        "value": {
            "language": "markdown",
            "filename": "my notes.md",
            "code": "```python\nx = 1\n```\n",
            "highlight_lines": "1-2",
            "line_numbers": True,
        },
    },
    {"type": "markdown", "value": "    indented first line\n\n| a |\n| - |\n| 1 |"},
    {"type": "math", "value": {"tex": "a_1 * b", "label": "(2)"}},
    {
        "type": "html_figure",
        "value": {"html": "<svg></svg>", "height": 100, "caption": 'a "b" & <c> -->'},
    },
]


def build_site(home):
    """Add to `home` the demo blog and what it lacks: embed, draft, alias, links…"""
    call_command("load_demo", verbosity=0)
    add_embed(EMBED_URL)
    checklist = PostPage.objects.get(slug="cuda-performance-checklist")
    shelf = make_image("a shelf", "blue", "shelf.png")
    misc = add_series(
        home,
        title="Misc: odds and ends",
        slug="misc",
        intro=[
            {
                "type": "paragraph",
                "value": "<p>Things that fit <b>nowhere</b> else; see "
                f'<a linktype="page" id="{checklist.pk}">the checklist</a>.</p>',
            },
            {
                "type": "callout",
                "value": {
                    "kind": "tip",
                    "title": "Setup",
                    "body": "<p>Build with <code>make</code>.</p>",
                },
            },
            {
                "type": "code",
                "value": {
                    "language": "bash",
                    "filename": "",
                    "code": "make -j8",
                    "highlight_lines": "",
                    "line_numbers": True,
                },
            },
            {"type": "math", "value": {"tex": "T = N / B", "label": ""}},
            {
                "type": "image",
                "value": {"image": shelf.pk, "alt": "shelf", "caption": "The shelf"},
            },
        ],
        ordering="explorer",
        cover=make_image("misc cover", "red", "cover.png"),
    )
    add_post(
        misc,
        [
            {"type": "embed", "value": EMBED_URL},
            {"type": "paragraph", "value": "<p>It costs $5 or $10, \\$3 with tax.</p>"},
            {
                "type": "paragraph",
                "value": "<p>A second paragraph block: $x_1 * y_2$, <code>a`b</code>, "
                f'<a linktype="page" id="{checklist.pk}">checklist</a>, '
                '<a href="https://example.com/a_(b)">ext</a>, <s>old</s>.</p>'
                "<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>",
            },
            {
                "type": "code",
                "value": {
                    "language": "bash",
                    "filename": "run.sh",
                    "code": "echo ``hi``",
                    "highlight_lines": "",
                    "line_numbers": False,
                },
            },
        ],
        title="Embed: a video",
        slug="embed-post",
        summary="A post with a video.",
        tags=("video", "CUDA"),
        allow_comments=True,
    )
    add_post(
        misc,
        [{"type": "paragraph", "value": "<p>Not published yet.</p>"}],
        live=False,
        title="Draft post",
        slug="draft-post",
        date=datetime.date(2026, 9, 2),
    )
    linking = PostPage.objects.get(slug="csapp-7-链接")
    csapp = SeriesPage.objects.get(slug="csapp")
    links = {
        "type": "paragraph",
        "value": f'<p>Read <a linktype="page" id="{linking.pk}">链接</a> in '
        f'<a linktype="page" id="{csapp.pk}">the <i>CSAPP</i> series</a>.</p>',
    }
    figure = {
        "type": "image",
        "value": {
            "image": misc.cover_id,
            "alt": "a [x] *y* $z$ C:\\temp",
            "caption": 'say "hi" \\alpha $I^* \\approx 2$ [x]',
            "width": 300,
        },
    }
    images = [
        {
            "type": "image",
            "value": {
                "image": None,
                "url": "https://example.com/figs/sm%201.png?v=2",
                "alt": "remote",
                "caption": "shown from its URL",
            },
        },
        {
            "type": "markdown",
            "value": f"A library image in Markdown: ![cover](image:{misc.cover_id})\n",
        },
        {"type": "paragraph", "value": '<ol start="3"><li>third</li></ol>'},
    ]
    add_post(
        misc,
        [*TRICKY_BODY, links, figure, *images],
        title="[Tricky] *text*: # all",
        slug="tricky",
    )
    drafts = add_series(
        misc, title="Unpublished series", slug="drafts", intro=[], ordering="explorer"
    )
    drafts.unpublish()
    aliased = add_post(
        home,
        [{"type": "heading", "value": {"text": "Top level", "level": "h2"}}],
        title="Top-level post",
        slug="top-level",
        date=datetime.date(2026, 7, 1),
        updated=datetime.date(2026, 7, 4),
    )
    Redirect.objects.create(
        old_path="/old/top-level-post", redirect_page=aliased, is_permanent=True
    )
    Redirect.objects.create(old_path="/temp", redirect_page=aliased, is_permanent=False)
    return home


def read_tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def front(text: str) -> str:
    return text.split("\n---\n", 1)[0] + "\n---\n"


class Buffer:
    """A stdout for call_command that keeps what was written."""

    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass
