"""The fixture vault through import, export and import again: readers see the same site."""

import re

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from taggit.models import Tag
from wagtail.contrib.redirects.models import Redirect
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import ArchivePage, PostPage, SeriesPage, TagIndexPage
from tests.vault.importer.runs import outcomes

pytestmark = pytest.mark.django_db

# What differs and means the same to a reader: rendition files, named after
# the image file and made anew in each site; footnote anchors, named after the
# block's id; a figure's own URL, named after its block's id (what it serves is
# compared apart); a line break in the source of a paragraph, which renders as a
# space.
# A rendition, or an original (the <img> under them): each import names its own.
_RENDITION = re.compile(r"/media/(?:images|original_images)/[^\s\"',]+")
_FOOTNOTE = re.compile(r"(fn(?:ref)?-)[0-9a-f]+-")
_FIGURE = re.compile(r"/figures/[0-9a-f-]+/")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def reader_html(markup: str) -> str:
    markup = _FOOTNOTE.sub(r"\1ID-", _RENDITION.sub("RENDITION", markup.strip()))
    markup = _FIGURE.sub("/figures/ID/", markup)
    parts = _PRE.split(markup)
    return "".join(
        part if part.startswith("<pre") else re.sub(r"\s+", " ", part) for part in parts
    )


def figure_document(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def rendered_site(client, home) -> dict[str, dict]:
    """Return what a reader sees of every post and series, by URL."""
    pages = {}
    for page in home.get_descendants().live().specific().order_by("path"):
        if isinstance(page, TagIndexPage | ArchivePage):
            continue
        response = client.get(page.url)
        assert response.status_code == 200, page.url
        html = BeautifulSoup(response.content, "html.parser")
        seen = {"type": type(page).__name__, "title": page.title}
        if isinstance(page, PostPage):
            body = html.select_one(".post-body")
            seen |= {
                "date": page.date,
                "updated": page.updated,
                "tags": sorted(tag.name for tag in page.tags.all()),
                "summary": page.summary,
                "meta": html.select_one(".post-meta").get_text(" ", strip=True),
                "body": reader_html(body.decode_contents()),
                "images": len(body.find_all("img")),
                "figures": [
                    figure_document(client, frame["src"])
                    for frame in body.select("iframe[src*='/figures/']")
                ],
            }
        else:
            intro = html.select_one(".intro")
            seen["intro"] = reader_html(intro.decode_contents()) if intro else ""
        pages[page.url] = seen
    return pages


def empty(home) -> None:
    for child in home.get_children().not_type(TagIndexPage, ArchivePage):
        child.delete()
    get_image_model().objects.all().delete()
    Redirect.objects.all().delete()
    Tag.objects.all().delete()


def test_the_export_of_an_imported_vault_imports_into_the_same_site(
    vault, run_import, client, home, tmp_path
):
    run = run_import(vault)
    assert run.error is None, run.out
    before = rendered_site(client, home)
    assert any(seen.get("figures") for seen in before.values())
    assert sum(page.get("images", 0) for page in before.values()) >= 2
    assert any("katex" in page.get("body", "") for page in before.values())
    assert len(before) == PostPage.objects.live().count() + SeriesPage.objects.count()

    call_command("export_markdown", str(tmp_path / "out"), stdout=None)
    empty(home)
    assert rendered_site(client, home) == {}
    again = run_import(tmp_path / "out")
    assert again.error is None, again.out
    after = rendered_site(client, home)

    assert list(after) == list(before)
    for url, page in before.items():
        for name, value in page.items():
            assert after[url][name] == value, f"{url} {name}"


def test_a_second_import_of_the_same_vault_changes_nothing(
    vault, run_import, client, home
):
    run_import(vault)
    before = rendered_site(client, home)
    pages = Page.objects.count()
    run = run_import(vault)
    assert outcomes(run.out) == {
        "created": (0, 0),
        "updated": (0, 0),
        "unchanged": (11, 5),
        "failed": (0, 0),
    }
    assert Page.objects.count() == pages
    assert rendered_site(client, home) == before
