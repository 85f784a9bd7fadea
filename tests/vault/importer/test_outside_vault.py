"""Nothing outside the vault is read: symlinks, `../`, absolute and encoded paths."""

import hashlib
import os

import pytest
from wagtail.images import get_image_model

from blog.models import PostPage
from tests.vault.importer.conftest import draw
from vault.importer.assets import AssetFinder, Located
from vault.importer.body import parse_body

pytestmark = pytest.mark.django_db

SECRET = "SECRET_KEY=hunter2-do-not-publish"


@pytest.fixture
def outside(tmp_path):
    """Files beside the vault that must never be read: a settings file, a picture."""
    folder = tmp_path / "home" / "me"
    folder.mkdir(parents=True)
    (folder / "settings.md").write_text(f"# Settings\n\n{SECRET}\n", "utf-8")
    (folder / "figure.html").write_text(f"<p>{SECRET}</p>", "utf-8")
    draw(folder / "secret.png", (7, 5), (1, 2, 3))
    (folder / "private").mkdir()
    (folder / "private" / "diary.md").write_text(f"# Diary\n\n{SECRET}\n", "utf-8")
    return folder


@pytest.fixture
def hostile_vault(tmp_path, outside):
    """A vault whose files point out of it every way an author's tools allow."""
    root = tmp_path / "vault"
    notes = root / "notes"
    (notes / "img").mkdir(parents=True)
    draw(notes / "img" / "ok.png", (4, 4), (200, 10, 10))
    # A symlinked post, image, figure and folder, all leading out.
    (notes / "settings.md").symlink_to(outside / "settings.md")
    (notes / "img" / "pretty.png").symlink_to(outside / "secret.png")
    (notes / "img" / "plot.html").symlink_to(outside / "figure.html")
    (notes / "private").symlink_to(outside / "private", target_is_directory=True)
    (notes / "series").mkdir()
    (notes / "series" / "index.md").symlink_to(outside / "settings.md")
    (notes / "series" / "part-1.md").write_text("# Part one\n\nText.\n", "utf-8")
    # A symlink that stays inside the vault is followed.
    (root / ".templates").mkdir()
    (root / ".templates" / "about.md").write_text(
        "---\ntitle: About this vault\n---\nShared intro text.\n", "utf-8"
    )
    (notes / "about.md").symlink_to(root / ".templates" / "about.md")
    up = os.path.relpath(outside, notes)  # ../../home/me
    (notes / "escape.md").write_text(
        "---\n"
        "title: Escape attempts\n"
        f"cover: {up}/secret.png\n"
        "---\n"
        "A fine picture:\n\n"
        "![ok](img/ok.png)\n\n"
        f"![climb]({up}/secret.png)\n\n"
        f"![absolute]({outside}/secret.png)\n\n"
        f"![encoded]({up.replace('/', '%2F')}%2Fsecret.png)\n\n"
        f"![dots](%2e%2e/%2e%2e/home/me/secret.png)\n\n"
        "![passwd](/etc/passwd)\n\n"
        f'<img src="file://{outside}/secret.png" alt="url">\n\n'
        "![link](img/pretty.png)\n\n"
        f'<iframe src="{up}/figure.html" height="200"></iframe>\n\n'
        '<iframe src="img/plot.html"></iframe>\n\n'
        "The end.\n",
        "utf-8",
    )
    return root


def test_nothing_outside_the_vault_is_read_or_published(
    hostile_vault, outside, run_import, home, client
):
    run = run_import(hostile_vault)

    assert run.error is None, run.out
    posts = {page.source_path: page for page in PostPage.objects.all()}
    assert set(posts) == {"notes/escape.md", "notes/about.md", "notes/series/part-1.md"}
    # The folder whose index.md leads out is a series named after the folder.
    series = posts["notes/series/part-1.md"].get_parent().specific
    assert series.title == "series"
    assert SECRET not in client.get(series.url).text
    for page in posts.values():
        response = client.get(page.url)
        assert response.status_code == 200
        assert SECRET not in response.content.decode()
    assert "Shared intro text." in client.get(posts["notes/about.md"].url).text
    escape = posts["notes/escape.md"]
    assert escape.cover is None
    secret_hash = hashlib.sha1((outside / "secret.png").read_bytes()).hexdigest()  # noqa: S324
    stored = list(get_image_model().objects.all())
    assert [image.file_hash for image in stored] != []
    for image in stored:
        with image.file.open("rb") as handle:
            data = handle.read()
        assert hashlib.sha1(data).hexdigest() != secret_hash  # noqa: S324
    assert [block.block_type for block in escape.body] == [
        "paragraph",
        "image",
        "paragraph",
    ]

    refused = "file outside the vault not read"
    assert f"notes/settings.md: {refused}: symlink to {outside}/settings.md" in run.out
    assert f"notes/private: {refused}: symlink to {outside}/private" in run.out
    target = f"{outside}/settings.md"
    assert f"notes/series/index.md: {refused}: symlink to {target}" in run.out
    text = (hostile_vault / "notes" / "escape.md").read_text("utf-8").splitlines()
    # A file:// image in raw HTML is not taken at all.
    url_line = next(n for n, t in enumerate(text, start=1) if 'alt="url"' in t)
    assert f"notes/escape.md:{url_line}: image file://" in run.out
    for needle in (
        "cover:",
        "![climb]",
        "![absolute]",
        "![encoded]",
        "![dots]",
        "![passwd]",
        "![link]",
        '<iframe src="../',
        '<iframe src="img/plot',
    ):
        line = next(n for n, t in enumerate(text, start=1) if needle in t)
        where = "notes/escape.md" if needle == "cover:" else f"notes/escape.md:{line}"
        assert any(
            row.strip().startswith(f"{where}: {refused}: ")
            for row in run.out.splitlines()
        ), (needle, run.out)


@pytest.fixture
def windows_vault(tmp_path):
    """A vault written on Windows: Typora and Obsidian left absolute paths."""
    root = tmp_path / "vault"
    draw(root / "cuda" / "img" / "warp.png", (5, 5), (10, 200, 10))
    # Two pictures named like the old layout's: the folders decide which.
    draw(root / "cuda" / "img" / "plot.png", (6, 5), (10, 10, 200))
    draw(root / "notes" / "img" / "plot.png", (5, 6), (200, 200, 10))
    draw(root / "a" / "shot.png", (3, 3), (1, 1, 1))
    draw(root / "b" / "shot.png", (3, 4), (2, 2, 2))
    return root


@pytest.mark.parametrize(
    "written, found",
    [
        ("C:/Users/me/Documents/vault/cuda/img/warp.png", "cuda/img/warp.png"),
        ("C:\\Users\\me\\Documents\\vault\\cuda\\img\\warp.png", "cuda/img/warp.png"),
        ("file:///C:/Users/me/vault/cuda/img/warp.png", "cuda/img/warp.png"),
        ("D:%5CBlog%5Cnotes%5Cimg%5Cplot.png", "notes/img/plot.png"),
        ("C:/Users/me/vault/cuda/img/plot.png", "cuda/img/plot.png"),
    ],
)
def test_windows_paths_are_found_in_the_vault_by_name(windows_vault, written, found):
    finder = AssetFinder(windows_vault)
    located = finder.locate(written, windows_vault / "cuda")
    assert located == Located((windows_vault / found).resolve())


def test_a_windows_path_is_never_read_from_the_disk(windows_vault, monkeypatch):
    # Where the process runs, a folder named like the drive holds the file.
    (windows_vault.parent / "C:" / "secret").mkdir(parents=True)
    draw(windows_vault.parent / "C:" / "secret" / "only-here.png", (2, 2), (0, 0, 0))
    monkeypatch.chdir(windows_vault.parent)
    body = parse_body(
        "![x](C:/secret/only-here.png)\n",
        base_dir=windows_vault,
        finder=AssetFinder(windows_vault),
    )
    assert body.images == []
    assert [(w.line, w.message) for w in body.warnings] == [
        (1, "missing image: C:/secret/only-here.png")
    ]


def test_an_ambiguous_file_name_is_reported_and_one_file_taken(windows_vault):
    body = parse_body(
        "Before.\n\n![shot](C:\\Users\\me\\Pictures\\shot.png)\n",
        base_dir=windows_vault / "cuda",
        finder=AssetFinder(windows_vault),
    )
    assert [image.path for image in body.images] == [
        (windows_vault / "a" / "shot.png").resolve()
    ]
    assert [(w.line, w.message) for w in body.warnings] == [
        (
            3,
            "ambiguous file name: C:/Users/me/Pictures/shot.png matches 2 files "
            "in the vault (a/shot.png, b/shot.png); using a/shot.png",
        )
    ]
