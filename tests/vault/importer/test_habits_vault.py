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
from django.urls import reverse
from wagtail.documents import get_document_model
from wagtail.images import get_image_model
from wagtail.models import Page

from blog.models import PostPage, SeriesPage
from tests.vault.importer.conftest import FIXTURES, draw, excalidraw, pdf
from tests.vault.importer.test_import import line_of, outcomes, totals

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
    excalidraw(root / "cuda" / "img" / "excalidraw-overview.svg")
    pdf(root / "cuda" / "files" / "talk.pdf")
    draw(root / "cuda" / "img" / "avatar.png", (120, 150), (230, 190, 150))
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
            text, article = reader_text(response.content.decode())
            seen[page.url] = (
                page.title,
                " ".join(text.split()),
                len(article.find_all("img")),
                len(article.select(".katex")),
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
    # The exported attachment is the same file: the same document, not a copy.
    assert get_document_model().objects.count() == 1


@pytest.fixture
def media_on_disk(tmp_path, settings):
    """Media on the file system, served by config/media.py as production serves it."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    }
    return settings.MEDIA_ROOT


def svg_images(article) -> list:
    return [img for img in article.find_all("img") if img["src"].endswith(".svg")]


def test_svg_drawings_are_library_images_shown_as_img(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(title="画图的习惯")
    html = client.get(post.url).content.decode()
    _, article = reader_text(html)

    shown = svg_images(article)
    # The Excalidraw drawing, the small one, the inline <svg>, the scripted one.
    assert len(shown) == 4, [img["src"] for img in article.find_all("img")]
    assert shown[0]["alt"] == "内存层次总览"
    assert (shown[0]["width"], shown[0]["height"]) == ("380", "340")
    assert shown[2]["alt"] == "一个线程块"
    # Never a frame, never a raster copy: the <img> is the drawing itself.
    assert "交互式图" not in html and not article.find_all("iframe")
    assert not [img for img in shown if img.find_parent("picture")]
    svgs = [i for i in get_image_model().objects.all() if i.file.name.endswith(".svg")]
    assert len(svgs) == 4
    assert (
        not get_image_model()
        .get_rendition_model()
        .objects.filter(image__in=svgs)
        .exists()
    )
    drawing = next(i for i in svgs if i.title == "excalidraw-overview")
    assert drawing.file_size > 80_000
    assert b"@font-face" in drawing.file.open("rb").read()
    inline = next(i for i in svgs if i.title == "一个线程块")
    assert (
        inline.file.open("rb")
        .read()
        .startswith(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40"')
    )


def test_an_svg_with_a_script_is_served_so_it_cannot_run(
    habits, run_import, client, media_on_disk
):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(title="画图的习惯")
    _, article = reader_text(client.get(post.url).content.decode())
    scripted = svg_images(article)[3]["src"]
    assert scripted.startswith("/media/")

    response = client.get(scripted)

    assert response.status_code == 200
    assert b"<script>" in b"".join(response.streaming_content)  # kept, as written
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Disposition"].startswith("attachment")
    assert response["X-Content-Type-Options"] == "nosniff"
    policy = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    assert "default-src 'none'" in policy and "sandbox" in policy


def test_the_admin_shows_an_svg_thumbnail(habits, run_import, admin_client):
    run = run_import(habits)
    assert run.error is None, run.out
    drawing = get_image_model().objects.get(title="excalidraw-overview")

    for url in (
        reverse("wagtailimages:index"),
        reverse("wagtailimages_chooser:choose"),
    ):
        response = admin_client.get(url)
        assert response.status_code == 200
        markup = response.content.decode()
        if "chooser" in url:
            markup = response.json()["html"]
        soup = BeautifulSoup(markup, "html.parser")
        thumbs = [
            img["src"]
            for img in soup.find_all("img")
            if img.get("alt") == drawing.title or drawing.title in img.get("src", "")
        ]
        assert thumbs, url
        assert all(src.endswith(".svg") for src in thumbs), thumbs


def test_exported_svgs_are_files_again(habits, run_import, tmp_path):
    run = run_import(habits)
    assert run.error is None, run.out
    out = tmp_path / "out"
    call_command("export_markdown", str(out))

    written = next(out.rglob("画图的习惯.md"), None) or next(
        path for path in out.rglob("*.md") if "画图的习惯" in path.read_text("utf-8")
    )
    text = written.read_text("utf-8")
    sources = re.findall(r"!\[[^\]]*\]\(([^)]+\.svg)\)", text)
    assert len(sources) == 4, text
    for src in sources:
        exported = written.parent / src
        assert exported.read_bytes().lstrip().startswith((b"<svg", b"<?xml")), src
    assert "<svg" not in text and "block:html_figure" not in text


def test_an_image_in_a_heading_follows_it(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(title="画图的习惯")
    _, article = reader_text(client.get(post.url).content.decode())

    heading = next(h for h in article.find_all("h2") if "作者" in h.get_text())
    assert heading.get_text(" ", strip=True).startswith("作者")
    assert "作者照片" not in heading.get_text()  # the alt text is the image's
    photo = heading.find_next("img")
    assert photo["alt"] == "作者照片"
    assert photo.find_previous(["h2", "h3"]) is heading
    assert "写这些图的人" in photo.find_next("p").get_text()
    # The school's logo is not in the vault: named, with its line.
    line = line_of(habits / "cuda" / "画图.md", "school-logo.png")
    assert f"cuda/画图.md:{line}: missing image: img/school-logo.png" in run.out


def test_a_linked_file_is_a_document_served_as_a_download(
    habits, run_import, client, media_on_disk
):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(title="画图的习惯")
    _, article = reader_text(client.get(post.url).content.decode())

    link = article.find("a", string="幻灯片")
    document = get_document_model().objects.get()
    assert link["href"] == document.url
    response = client.get(link["href"])
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    assert b"".join(response.streaming_content).startswith(b"%PDF-")
    # The one that is gone keeps its link as written, and is named.
    assert article.find("a", string="简历")["href"] == "files/cv-2019.pdf"
    line = line_of(habits / "cuda" / "画图.md", "cv-2019.pdf")
    assert f"cuda/画图.md:{line}: missing attachment: files/cv-2019.pdf" in run.out


def test_exported_attachments_are_files_linked_relatively(habits, run_import, tmp_path):
    run = run_import(habits)
    assert run.error is None, run.out
    out = tmp_path / "out"
    call_command("export_markdown", str(out))

    written = next(
        path for path in out.rglob("*.md") if "画图的习惯" in path.read_text("utf-8")
    )
    text = written.read_text("utf-8")
    href = re.search(r"\[幻灯片\]\(([^)]+)\)", text).group(1)
    assert href.startswith("attachments/") and href.endswith(".pdf"), text
    assert (written.parent / href).read_bytes().startswith(b"%PDF-")
