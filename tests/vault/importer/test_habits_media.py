"""The habits vault's drawings, attachments and embedded notes, as a reader gets them."""

import re

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.urls import reverse
from wagtail.documents import get_document_model
from wagtail.images import get_image_model

from blog.models import PostPage
from tests.vault.importer.reader import reader_text
from tests.vault.importer.runs import line_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def media_on_disk(tmp_path, settings):
    """Media on the file system, served by serving/media.py as production serves it."""
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
    # Obsidian's ![[talk.pdf]], found by name: the same document.
    assert article.find("a", string="talk.pdf")["href"] == document.url
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


def test_embedded_notes_show_the_note_or_its_section(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    post = PostPage.objects.get(title="嵌入笔记")
    _, article = reader_text(client.get(post.url).content.decode())
    whole, section, aliased = article.select(".post-body aside.note-embed")
    git_tips = PostPage.objects.get(title="Git Tips")
    streams = PostPage.objects.get(title="CUDA Streams")

    assert whole.select_one(".note-embed-source").get_text() == "引自《Git Tips》"
    assert whole.select_one(".note-embed-source a")["href"] == git_tips.url
    assert "跟踪改名" in whole.get_text()

    assert section.select_one(".note-embed-source a")["href"] == (
        f"{streams.url}#overlap"
    )
    body = section.select_one(".note-embed-body").get_text(" ")
    assert "就能重叠" in body and "设备要支持" in body
    assert "按顺序执行" not in body and "计时" not in body
    assert "计时" in aliased.get_text()

    # Inside a sentence an embed stays a link; a missing note stays its text.
    sentence = next(p for p in article.find_all("p") if "句子里的" in p.get_text())
    assert sentence.a["href"] == git_tips.url
    assert "Missing Note" in article.get_text()

    file = "notes/Embeds.md"
    assert f"{file}:18: embedded note ![[Git Tips]] imported as a link" in run.out
    assert f"{file}:20: embedded note ![[Missing Note]] not found" in run.out


def test_notes_that_embed_each_other_stop_with_a_warning(habits, run_import, client):
    run = run_import(habits)
    assert run.error is None, run.out
    first = PostPage.objects.get(title="循环甲")
    _, article = reader_text(client.get(first.url).content.decode())
    outer, inner = article.select(".post-body aside.note-embed")

    assert "乙的正文。" in outer.select_one(".note-embed-body").get_text()
    assert inner.select_one(".note-embed-source a")["href"] == first.url
    assert inner.select_one(".note-embed-notice").get_text() == "循环嵌入，未展开"
    for file, target in (("Loop A", "Loop B"), ("Loop B", "Loop A")):
        assert (
            f"notes/{file}.md:8: embedded note ![[{target}]] embeds this note again"
        ) in run.out, run.out


def test_the_export_writes_embeds_back_on_their_own_lines(habits, run_import, tmp_path):
    run = run_import(habits)
    assert run.error is None, run.out
    call_command("export_markdown", str(tmp_path / "out"))
    files = list((tmp_path / "out").rglob("*.md"))
    embeds = next(path for path in files if "title: 嵌入笔记" in path.read_text())

    lines = embeds.read_text().splitlines()
    # Beside it in notes/, the files of Git Tips and CUDA Streams.
    assert "![[git-tips]]" in lines
    assert "![[cuda-streams#Overlap]]" in lines
    assert "![[cuda-streams#Events]]" in lines  # the alias is not kept
    # (The round trip above imports them back into the same pages.)
