"""The site every export test starts from, and no oEmbed request over the network."""

import datetime

import pytest
from django.core.management import call_command
from wagtail.contrib.redirects.models import Redirect

from blog.models import PostPage, SeriesPage
from tests.vault.exporter.sites import (
    EMBED_URL,
    add_embed,
    add_post,
    add_series,
    make_image,
)


@pytest.fixture(autouse=True)
def no_oembed_requests(monkeypatch):
    """Fail loudly instead of asking an oEmbed provider over the network."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"tests must not fetch oEmbed for {url}")

    monkeypatch.setattr("wagtail.embeds.embeds.get_finder_for_embed", refuse)


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


@pytest.fixture
def site(home):
    """The demo blog plus what it lacks: embed, draft, alias, links, nolinenos…"""
    call_command("load_demo", verbosity=0)
    add_embed(EMBED_URL)
    checklist = PostPage.objects.get(slug="cuda-performance-checklist")
    misc = add_series(
        home,
        title="Misc: odds and ends",
        slug="misc",
        intro="<p>Things that fit <b>nowhere</b> else; see "
        f'<a linktype="page" id="{checklist.pk}">the checklist</a>.</p>',
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
        comments=True,
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
        },
    }
    add_post(
        misc,
        [*TRICKY_BODY, links, figure],
        title="[Tricky] *text*: # all",
        slug="tricky",
    )
    drafts = add_series(
        misc, title="Unpublished series", slug="drafts", intro="", ordering="explorer"
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
