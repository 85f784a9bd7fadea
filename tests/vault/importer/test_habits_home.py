"""The habits vault's root index.md is the home page's intro and names the site.

And the whole vault, exported then imported into an empty site, gives the same pages.
"""

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from wagtail.documents import get_document_model

from blog.models import PostPage, SeriesPage
from tests.vault.importer.reader import pages, reader_text

pytestmark = pytest.mark.django_db


def home_card(client) -> BeautifulSoup | None:
    """Return the home page's author card as a reader gets it."""
    soup = BeautifulSoup(client.get("/").content.decode(), "html.parser")
    return soup.select_one(".home-side .author-card")


def test_a_home_page_with_no_intro_draws_no_author_card(home, client):
    assert home_card(client) is None


def test_the_root_index_is_the_home_intro_and_names_the_site(
    habits, run_import, client
):
    run = run_import(habits)
    assert run.error is None, run.out
    assert "Not imported" not in run.out
    assert "index.md at the vault's root: the home page's intro, updated" in run.out
    assert "Site name: MlSys 笔记 (from mkdocs.yml)" in run.out

    card = home_card(client)
    text = " ".join(card.get_text(" ").split())
    assert text.startswith("Welcome to enjoy MlSys magic! 🎉")
    assert "Looking for a llm inference acceleration internship" in text
    assert [li.get_text() for li in card.find_all("li")] == [
        "写给自己，也写给正在找路的人",
        "代码都能跑",
    ]
    link = card.find("a", string="CUDA 笔记")
    assert link["href"] == SeriesPage.objects.get(source_path="cuda").url
    page = BeautifulSoup(client.get("/").content.decode(), "html.parser")
    assert page.title.get_text().strip() == "MlSys 笔记"
    assert "MlSys 笔记" in page.select_one("header").get_text()

    again = run_import(habits)
    assert "the home page's intro, unchanged" in again.out
    assert "Site name" not in again.out

    (habits / "index.md").write_text("Now at a new place.\n", encoding="utf-8")
    changed = run_import(habits)
    assert "the home page's intro, updated" in changed.out
    assert home_card(client).get_text(" ").split() == [
        "Now",
        "at",
        "a",
        "new",
        "place.",
    ]


def test_a_renamed_home_page_keeps_its_site_name(habits, run_import, client, home):
    home.title = "我的主页"
    home.save_revision().publish()
    run = run_import(habits)
    assert "Site name" not in run.out
    page = BeautifulSoup(client.get("/").content.decode(), "html.parser")
    assert "MlSys" not in page.title.get_text()


def test_export_then_import_into_an_empty_site_gives_the_same_pages(
    habits, run_import, client, home, tmp_path
):
    run = run_import(habits)
    assert run.error is None, run.out

    def snapshot():
        card = home_card(client)
        seen = {"/": " ".join(card.get_text(" ").split())}
        for page in pages():
            response = client.get(page.url)
            html = response.content.decode()
            diagrams = BeautifulSoup(html, "html.parser").select(".block-diagram")
            text, article = reader_text(html)
            seen[page.url] = (
                page.title,
                " ".join(text.split()),
                len(article.find_all("img")),
                [img.get("width") for img in article.find_all("img")],
                len(article.select(".katex")),
                [diagram.get_text() for diagram in diagrams],
            )
        return seen

    before = snapshot()
    call_command("export_markdown", str(tmp_path / "out"))
    assert (
        (tmp_path / "out" / "index.md")
        .read_text(encoding="utf-8")
        .startswith("**Welcome to enjoy MlSys magic! 🎉**\n")
    )
    for child in home.get_children().specific():
        if isinstance(child, PostPage | SeriesPage):
            child.delete()
    home = home.get_latest_revision_as_object()
    home.intro = ""
    home.save_revision().publish()
    assert home_card(client) is None
    again = run_import(tmp_path / "out")
    assert again.error is None, again.out
    assert snapshot() == before
    # The exported attachment is the same file: the same document, not a copy.
    assert get_document_model().objects.count() == 1
