"""A vault written the way real authors write, imported whole (issue 21's "done when").

`fixtures/habits/` carries the Obsidian and MkDocs habits a real vault has: soft
line breaks, images in lists and beside footnotes, remote images, file names with
spaces, Markdown-escaped math, admonitions, content tabs, attribute lists, emoji
shortcodes, CJK emphasis, footnotes in headings, a `tags/` folder, `C` beside
`C++`, a README as a folder intro, a broken front matter line. The checks read
the pages a reader gets.
"""

import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import PostPage, SeriesPage
from tests.vault.importer.conftest import FIXTURES, draw
from tests.vault.importer.test_import import outcomes, totals

pytestmark = pytest.mark.django_db

# Markup that must never reach a reader as text.
RAW = ("$$", "\\[", "[!NOTE]", "!!!", "???", "===", "[^", "{ width=", "{ align=")
RAW_PATTERNS = (
    re.compile(r":[a-z][a-z0-9_+-]*:"),  # an emoji or icon shortcode
    re.compile(r"\*\*|(?<![\w*])\*(?=\S)"),  # emphasis markers
    re.compile(r"==[^=\s][^=]*?=="),  # a highlight's markers
)

# Local images the vault refers to: (post, file).
LOCAL_IMAGES = {
    "cuda/vector-add-optimization-example": [
        "vector add.png",
        "warp.png",
        "check errors.png",
    ],
}


@pytest.fixture
def habits(tmp_path):
    root = tmp_path / "habits"
    shutil.copytree(FIXTURES / "habits", root)
    draw(root / "cuda" / "img" / "vector add.png", (40, 20), (200, 60, 60))
    draw(root / "cuda" / "img" / "warp.png", (30, 30), (60, 200, 60))
    draw(root / "cuda" / "img" / "check errors.png", (20, 40), (60, 60, 200))
    return root


def reader_text(html: str) -> tuple[str, BeautifulSoup]:
    """Return the article's text without code, math sources and scripts."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("main") or soup
    for node in article.find_all(["pre", "code", "script", "style", "annotation"]):
        node.decompose()
    for node in article.select(".katex-mathml"):
        node.decompose()
    return article.get_text(" "), article


def pages():
    return [
        page
        for page in Page.objects.live().specific().order_by("path")
        if isinstance(page, PostPage | SeriesPage) and page.depth > 2
    ]


def test_every_file_imports_and_no_markup_is_left_as_text(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    assert outcomes(run.out)["failed"] == (0, 0), run.out

    problems = []
    for page in pages():
        response = client.get(page.url)
        if response.status_code != 200:
            problems.append(f"{page.url}: {response.status_code}")
            continue
        text, _ = reader_text(response.content.decode())
        for raw in RAW:
            if raw in text:
                problems.append(f"{page.url}: {raw!r} shown as text")
        for pattern in RAW_PATTERNS:
            for match in pattern.finditer(text):
                problems.append(f"{page.url}: {match.group()!r} shown as text")
    assert problems == [], "\n".join(problems)


def test_highlights_are_marked_and_comparisons_are_not(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(slug="vector-add-optimization-example")
    html = client.get(post.url).content.decode()
    text, article = reader_text(html)
    assert [mark.get_text() for mark in article.find_all("mark")] == ["合并访存"]
    assert "if (x == y) 不算高亮" in text
    assert "<code>a == b</code>" in html


SEQUENCE = """sequenceDiagram
    participant H as Host
    participant D as Device
    H->>D: cudaMemcpy(d_a, h_a)
    H->>D: add<<<blocks, threads>>>(d_a, d_b, d_c)
    D-->>H: cudaMemcpy(h_c, d_c)"""


def test_a_mermaid_fence_is_a_diagram(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(slug="vector-add-optimization-example")
    diagrams = [b.value["source"] for b in post.body if b.block_type == "diagram"]
    assert diagrams == [SEQUENCE]
    html = client.get(post.url).content.decode()
    soup = BeautifulSoup(html, "html.parser")
    # The source as code, which the page's scripts draw.
    assert [f.pre.code.get_text() for f in soup.select("figure.block-diagram")] == [
        SEQUENCE
    ]
    scripts = [script["src"] for script in soup.find_all("script", src=True)]
    assert any(src.endswith("mermaid/mermaid.min.js") for src in scripts)
    assert any(src.endswith("js/diagrams.js") for src in scripts)


def test_images_are_where_the_author_put_them(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(slug="vector-add-optimization-example")
    _, article = reader_text(client.get(post.url).content.decode())
    images = article.find_all("img")
    sources = [img["src"] for img in images]
    assert "https://example.com/roofline.png" in sources
    local = [src for src in sources if not src.startswith("https://")]
    assert len(local) == len(LOCAL_IMAGES["cuda/vector-add-optimization-example"])
    titles = {image.title for image in get_image_model().objects.all()}
    for name in LOCAL_IMAGES["cuda/vector-add-optimization-example"]:
        assert any(Path(name).stem in title for title in titles), (name, titles)
    # The first image is inside the list, after "朴素版本", before "向量化读取".
    text = article.get_text("|")
    assert text.index("朴素版本") < text.index("向量化读取")
    order = [
        node
        for node in article.descendants
        if getattr(node, "name", None) == "img"
        or (isinstance(node, str) and "向量化读取" in node)
    ]
    assert getattr(order[0], "name", None) == "img", order


def test_the_authors_line_breaks_are_kept(habits, run_import, client):
    run_import(habits)
    post = PostPage.objects.get(slug="vector-add-optimization-example")
    _, article = reader_text(client.get(post.url).content.decode())
    paragraph = next(p for p in article.find_all("p") if "先看最简单的版本" in p.text)
    assert len(paragraph.find_all("br")) == 2


def test_urls_keep_meaning_and_old_ones_redirect(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    lang = {
        page.title: page.slug
        for page in PostPage.objects.filter(
            title__in=["C", "C++", "C#", "C++异步方案", "B+ 树"]
        )
    }
    assert len(set(lang.values())) == 5, lang
    assert lang["C"] == "c"
    assert "pp" in lang["C++"] and "sharp" in lang["C#"]
    tags_series = SeriesPage.objects.get(title="标签说明")
    assert tags_series.slug != "tags"
    assert client.get("/tags/").status_code == 200  # still the tag index
    assert "tags" in run.out.lower()

    post = PostPage.objects.get(slug="vector-add-optimization-example")
    for old in (
        "/cuda/Vector%20Add%20Optimization%20Example/",
        "/cuda/Vector%20Add%20Optimization%20Example",
        "/cuda/Vector Add Optimization Example/",
        "/old/vector-add/",
    ):
        response = client.get(old)
        assert response.status_code == 301, old
        assert response["Location"].endswith(post.url), old

    notes = SeriesPage.objects.get(slug="notes")
    assert notes.title == "读书笔记"
    assert not PostPage.objects.filter(slug="readme").exists()


def test_warnings_are_grouped_by_kind(habits, run_import):
    run = run_import(habits)
    kinds = run.out.split("Warnings by kind:\n", 1)[1].split("\n\n", 1)[0]
    counts = dict(reversed(line.split(None, 1)) for line in kinds.splitlines())
    assert counts["formula kept with an error: KaTeX parse error"] == "1", kinds
    assert counts["icon shortcode dropped: …"] == "1", kinds
    # Then each warning, in full, under its file.
    assert "math/escaped.md:20: formula kept with an error" in run.out


def test_a_second_import_changes_nothing(habits, run_import):
    first = run_import(habits)
    assert first.error is None, first.out
    before = totals()
    second = run_import(habits)
    assert second.error is None, second.out
    result = outcomes(second.out)
    assert result["created"] == (0, 0) and result["updated"] == (0, 0), second.out
    assert totals() == before


def test_export_then_import_into_an_empty_site_gives_the_same_pages(
    habits, run_import, client, home, tmp_path
):
    run = run_import(habits)
    assert run.error is None, run.out

    def snapshot():
        seen = {}
        for page in pages():
            response = client.get(page.url)
            html = response.content.decode()
            diagrams = BeautifulSoup(html, "html.parser").select(".block-diagram")
            text, article = reader_text(html)
            seen[page.url] = (
                page.title,
                " ".join(text.split()),
                len(article.find_all("img")),
                len(article.select(".katex")),
                [diagram.get_text() for diagram in diagrams],
            )
        return seen

    before = snapshot()
    call_command("export_markdown", str(tmp_path / "out"))
    for child in home.get_children().specific():
        if isinstance(child, PostPage | SeriesPage):
            child.delete()
    again = run_import(tmp_path / "out")
    assert again.error is None, again.out
    assert snapshot() == before
