"""Every image a vault's post shows is on the imported page, where the author put it.

Images in list items, callouts and Markdown blocks, remote images (shown from
their URL, or downloaded with ``--fetch-images``) and file names with spaces.
"""

import hashlib
import html as html_module
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from wagtail.images import get_image_model
from wagtail.models import Page, ReferenceIndex

from blog.models import ArchivePage, PostPage, TagIndexPage
from tests.vault.importer.conftest import draw
from tests.vault.importer.reader import page_html
from vault.exporter.tree import export_site

pytestmark = pytest.mark.django_db


STEPS = """\
---
title: Setting up the toolkit
---

Three steps, each with a screenshot:

1. Install the driver
   ![driver installed](img/driver.png)
2. Run the sample

   ![[sample run.png|300]]
3. Check the output

The end.
"""

INLINE = """\
---
title: Figures in their places
---

- a bullet with ![a tiny icon](img/icon.png) inside its text
- plain bullet
  - a nested item
    ![nested](img/nested.png)

> [!TIP] Look closely
> The warp scheduler:
> ![scheduler](img/scheduler.png)
> picks one warp per cycle.

> A quote with a figure
> ![quoted](img/quoted.png)

!!! example "An admonition"
    The tile in shared memory:

    ![admonished](img/nested.png)
"""

MARKDOWN_BLOCK = """\
---
title: Profiling results
---

Kernel time drops after tiling[^tiling], see ![before tiling](img/ps.png) and
<img src="img/after tiling.png" alt="after tiling">, and the Obsidian way
![[roofline.png|300x200]].

[^tiling]: Tiles of 32 by 32.
"""

REMOTE = """\
---
title: Borrowed figures
---

Intro.

![NVIDIA diagram](https://example.com/figs/sm.png "The SM")

![protocol relative](//cdn.example.org/x.jpg)

After.
"""

SPACES = """\
---
title: Spaces in names
---

![raw spaces](img/my figure.png)

![encoded](img/my%20figure.png)

![angle brackets](<img/my figure.png>)

![[my figure.png|300]]

![[my figure.png|320x200]]
"""


GALLERY = """\
---
title: Gallery
---

1. ![first](img/driver.png)
2. ![second](img/icon.png)
3. A step with text

Write `![alt](img/ps.png)` for an image[^a]: ![the result](img/ps.png)

A second note[^b] with ![another](img/quoted.png)

[^a]: As in Obsidian.
[^b]: Another block.
"""


TABLE = """\
---
title: Side by side
---

| before | after |
| --- | --- |
| ![before](img/ps.png) | ![[after tiling.png]] |

<div align="center">
  <img src="img/scheduler.png" width="400" alt="scheduler"/><br/>
  Figure 3: the warp scheduler
</div>
"""


FIGURE = """\
---
title: Before and after
---

<table>
<tr><td><img src="img/driver.png" width="200"></td><td><img src="img/icon.png"></td></tr>
<tr><td>before</td><td>after</td></tr>
</table>
"""


def colour(n: int) -> tuple[int, int, int]:
    return (n * 37 % 256, n * 91 % 256, n * 53 % 256)


@pytest.fixture
def image_vault(tmp_path):
    root = tmp_path / "vault"
    posts = {
        "steps.md": STEPS,
        "inline.md": INLINE,
        "profiling.md": MARKDOWN_BLOCK,
        "remote.md": REMOTE,
        "spaces.md": SPACES,
        "gallery.md": GALLERY,
        "table.md": TABLE,
        "figure.md": FIGURE,
    }
    root.mkdir()
    for name, text in posts.items():
        (root / name).write_text(text, "utf-8")
    names = [
        "img/driver.png",
        "attachments/sample run.png",
        "img/icon.png",
        "img/nested.png",
        "img/scheduler.png",
        "img/quoted.png",
        "img/ps.png",
        "img/after tiling.png",
        "attachments/roofline.png",
        "img/my figure.png",
    ]
    for n, name in enumerate(names, start=1):
        draw(root / name, (4 + n, 3 + n), colour(n))
    return root


def library_image(vault, name: str):
    """Return the library image holding the vault file ``name``; its file is stored."""
    digest = hashlib.sha1((vault / name).read_bytes(), usedforsecurity=False)
    image = get_image_model().objects.get(file_hash=digest.hexdigest())
    assert image.file.storage.exists(image.file.name)
    return image


def library_url(vault, name: str) -> str:
    return library_image(vault, name).file.url


def positions(html: str, *needles: str) -> list[int]:
    found = [html.find(needle) for needle in needles]
    assert -1 not in found, dict(zip(needles, found, strict=True))
    return found


@pytest.fixture
def imported(image_vault, run_import):
    run = run_import(image_vault)
    assert run.error is None, run.out
    return run


def test_an_image_ending_a_list_item_follows_it_and_the_list_goes_on(client, imported):
    html = page_html(client, "steps.md")
    order = positions(
        html,
        "Install the driver",
        'alt="driver installed"',
        '<ol start="2">',
        "Run the sample",
        "<img",  # the sample run screenshot, after item 2
        '<ol start="3">',
        "Check the output",
    )
    order[4] = html.find("<img", order[3])
    assert order == sorted(order)
    assert html.count("<img") == 2
    assert "placed after the list" not in imported.out
    body = PostPage.objects.get(source_path="steps.md").body
    assert [block.block_type for block in body] == [
        "paragraph", "image", "paragraph", "image", "paragraph",
    ]  # fmt: skip


def test_images_inside_text_nested_items_callouts_and_quotes_stay_there(
    client, imported, image_vault
):
    html = page_html(client, "inline.md")
    icon = library_url(image_vault, "img/icon.png")
    assert re.search(
        rf'<li>a bullet with <img src="{re.escape(icon)}" alt="a tiny icon"[^>]*> '
        r"inside its text</li>",
        html,
    )
    nested = re.search(r"<li>a nested item\s*<img [^>]*alt=\"nested\"", html)
    assert nested, html
    callout = re.search(r'<aside class="callout callout-tip">.*?</aside>', html, re.S)
    assert callout and 'alt="scheduler"' in callout.group(0)
    order = positions(
        callout.group(0), "The warp scheduler", 'alt="scheduler"', "picks one warp"
    )
    assert order == sorted(order)
    admonition = re.search(
        r'<aside class="callout callout-note">.*?</aside>', html, re.S
    )
    assert admonition and 'alt="admonished"' in admonition.group(0)
    quote = re.search(r"<blockquote>.*?</blockquote>", html, re.S)
    assert quote and 'alt="quoted"' in quote.group(0)
    for name in ("img/nested.png", "img/scheduler.png", "img/quoted.png"):
        assert f'src="{library_url(image_vault, name)}"' in html
    assert "placed after" not in imported.out


def test_images_in_a_markdown_block_come_from_the_media_library(
    client, imported, image_vault
):
    html = page_html(client, "profiling.md")
    for name, alt in [
        ("img/ps.png", "before tiling"),
        ("img/after tiling.png", "after tiling"),
        ("attachments/roofline.png", ""),
    ]:
        url = library_url(image_vault, name)
        assert re.search(
            rf'<img src="{re.escape(url)}" alt="{alt}"[^>]*loading="lazy"', html
        ), name
    assert 'src="img/' not in html
    assert "not imported" not in imported.out
    source = PostPage.objects.get(source_path="profiling.md").body[0].value
    shown = ("img/ps.png", "img/after tiling.png", "attachments/roofline.png")
    assert re.findall(r"\]\(<?(image:\d+)", source) == [
        f"image:{library_image(image_vault, name).pk}" for name in shown
    ]


def test_remote_images_are_shown_from_their_url(client, imported):
    html = page_html(client, "remote.md")
    figure = re.search(r'<figure class="block-image">.*?</figure>', html, re.S)
    assert figure is not None
    assert re.search(
        r'<img src="https://example.com/figs/sm.png" alt="NVIDIA diagram" '
        r'loading="lazy"',
        figure.group(0),
    )
    assert "<figcaption>The SM</figcaption>" in figure.group(0)
    assert '<img src="https://cdn.example.org/x.jpg"' in html
    assert '<a href="https://example.com' not in html
    assert "remote image" not in imported.out  # shown: nothing to warn about
    positions_ = positions(html, "Intro.", "figs/sm.png", "x.jpg", "After.")
    assert positions_ == sorted(positions_)


def test_the_site_policy_lets_remote_images_load(client, imported):
    response = client.get(PostPage.objects.get(source_path="remote.md").url)
    policy = response["Content-Security-Policy"]
    img_src = re.search(r"img-src ([^;]*)", policy).group(1).split()
    assert "https:" in img_src


def test_image_names_with_spaces_resolve(client, imported, image_vault):
    html = page_html(client, "spaces.md")
    body = PostPage.objects.get(source_path="spaces.md").body
    ids = {block.value["image"].pk for block in body if block.block_type == "image"}
    assert len(body) == 5 and len(ids) == 1
    assert ids == {library_image(image_vault, "img/my figure.png").pk}
    assert html.count("<picture") == 5
    assert "missing image" not in imported.out
    assert "320x200" not in html


def test_export_writes_the_images_back_and_the_import_reads_them(
    client, imported, image_vault, tmp_path, run_import
):
    before = {
        name: page_html(client, name).count("<img")
        for name in ("steps.md", "inline.md", "profiling.md", "remote.md")
    }
    out = tmp_path / "export"
    export_site(out)
    profiling = (out / "profiling.md").read_text("utf-8")
    written = re.search(r"!\[before tiling\]\((images/ps[^)]*\.png)\)", profiling)
    assert written, profiling
    assert (out / written.group(1)).read_bytes() == (
        image_vault / "img/ps.png"
    ).read_bytes()
    remote = (out / "remote.md").read_text("utf-8")
    assert '![NVIDIA diagram](https://example.com/figs/sm.png "The SM")' in remote
    written = re.search(
        r'<img src="(images/driver[^"]*\.png)"', (out / "figure.md").read_text("utf-8")
    )
    assert written and (out / written.group(1)).is_file()
    steps = (out / "steps.md").read_text("utf-8")
    assert re.search(r"^3\. Check the output$", steps, re.M)

    home = Page.objects.get(depth=2)
    for child in home.get_children().not_type(TagIndexPage, ArchivePage):
        child.delete()
    get_image_model().objects.all().delete()
    run = run_import(out)
    assert run.error is None, run.out
    after = {name: page_html(client, name).count("<img") for name in before}
    assert after == before
    html = page_html(client, "profiling.md")
    assert f'src="{library_url(image_vault, "img/ps.png")}"' in html
    figure = figure_html(client, "figure.md")
    assert f'src="{library_url(image_vault, "img/driver.png")}"' in figure
    steps_html = page_html(client, "steps.md")
    assert '<ol start="3">' in steps_html


def test_a_list_of_images_becomes_the_images_then_the_rest_of_the_list(
    client, imported
):
    body = PostPage.objects.get(source_path="gallery.md").body
    assert [block.block_type for block in body][:3] == ["image", "image", "paragraph"]
    assert [block.value["alt"] for block in body[:2]] == ["first", "second"]
    assert body[2].value.source == '<ol start="3"><li>A step with text</li></ol>'
    html = page_html(client, "gallery.md")
    assert "<li></li>" not in html


def test_code_in_a_markdown_block_is_not_taken_for_an_image(
    client, imported, image_vault
):
    source = PostPage.objects.get(source_path="gallery.md").body[3].value
    assert source.startswith("Write `![alt](img/ps.png)` for an image[^a]: ![the")
    url = library_url(image_vault, "img/ps.png")
    assert f'<img src="{url}" alt="the result"' in page_html(client, "gallery.md")


def test_the_images_of_all_markdown_blocks_are_looked_up_at_once(client, imported):
    page = PostPage.objects.get(source_path="gallery.md")
    assert [block.block_type for block in page.body].count("markdown") == 2
    with CaptureQueriesContext(connection) as queries:
        client.get(page.url)
    markdown_lookups = [
        query["sql"]
        for query in queries.captured_queries
        if 'FROM "wagtailimages_image"' in query["sql"]
    ]
    # One for the two image blocks, one for both Markdown blocks.
    assert len(markdown_lookups) == 2, markdown_lookups


def test_images_in_a_table_stay_in_their_cells(client, imported, image_vault):
    html = page_html(client, "table.md")
    table = re.search(r"<table>.*?</table>", html, re.S)
    assert table is not None
    cells = re.findall(r"<td>(.*?)</td>", table.group(0), re.S)
    assert len(cells) == 2
    for cell, name in zip(cells, ["img/ps.png", "img/after tiling.png"], strict=True):
        assert f'<img src="{library_url(image_vault, name)}"' in cell


def test_a_centred_html_image_with_a_line_of_text_is_a_captioned_image(
    client, imported, image_vault
):
    body = PostPage.objects.get(source_path="table.md").body
    assert body[1].block_type == "image"
    assert body[1].value["image"] == library_image(image_vault, "img/scheduler.png")
    assert body[1].value["caption"] == "Figure 3: the warp scheduler"
    html = page_html(client, "table.md")
    assert "<figcaption>Figure 3: the warp scheduler</figcaption>" in html


def figure_html(client, source_path: str) -> str:
    """Return the HTML the page's first interactive figure shows in its iframe.

    The figure is a document of its own, at the iframe's ``src``.
    """
    src = re.search(r'<iframe [^>]*\bsrc="([^"]*)"', page_html(client, source_path))
    assert src is not None
    response = client.get(html_module.unescape(src.group(1)))
    assert response.status_code == 200
    return response.content.decode()


def test_images_in_an_html_figure_come_from_the_media_library(
    client, imported, image_vault
):
    figure = figure_html(client, "figure.md")
    for name in ("img/driver.png", "img/icon.png"):
        assert f'src="{library_url(image_vault, name)}"' in figure
    assert "img/" not in figure


def test_the_media_library_knows_where_markdown_and_figures_use_an_image(
    imported, image_vault
):
    for name, post in [("img/ps.png", "profiling.md"), ("img/icon.png", "figure.md")]:
        image = library_image(image_vault, name)
        users = {
            reference.object_id for reference in ReferenceIndex.get_references_to(image)
        }
        assert str(PostPage.objects.get(source_path=post).pk) in users, name


SIZED = """\
---
title: Sized figures
---

![[roofline.png|300]]

![[roofline.png|300x200]]

![mkdocs](img/ps.png){ width="300" }

![mkdocs px](img/ps.png){ width=300px }

![percent](img/ps.png){ width="50%" }

![plain](img/ps.png)

![remote](https://example.com/a.png){ width="240" }

## A figure in a heading ![[roofline.png|280]]
"""


def test_an_images_width_as_obsidian_and_mkdocs_write_it_is_kept(tmp_path, run_import):
    root = tmp_path / "vault"
    root.mkdir()
    (root / "sized.md").write_text(SIZED, "utf-8")
    draw(root / "attachments/roofline.png", (40, 30), colour(1))
    draw(root / "img/ps.png", (40, 30), colour(2))

    run = run_import(root)

    assert run.error is None, run.out
    images = [
        block.value
        for block in PostPage.objects.get(source_path="sized.md").body
        if block.block_type == "image"
    ]
    # 300x200: the width; the height follows the image's own proportions.
    # Percent and other units are dropped, as a web page would resize them.
    assert [(v["alt"], v["width"]) for v in images] == [
        ("", 300),
        ("", 300),
        ("mkdocs", 300),
        ("mkdocs px", 300),
        ("percent", None),
        ("plain", None),
        ("remote", 240),
        ("", 280),
    ]
    assert "warnings: 0" in run.out
