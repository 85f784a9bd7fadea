"""`manage.py export_markdown` on the demo blog plus what it lacks.

The site is built once for the module (tests/shared_data.py); each test's own
changes are undone.
"""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from wagtail.images import get_image_model

from blog.models import HomePage, PostPage, SeriesPage
from tests.shared_data import kept_for_the_module
from tests.vault.exporter.sites import (
    Buffer,
    build_site,
    front,
    no_oembed_requests,
    read_tree,
)
from vault.exporter.tree import export_site


@pytest.fixture(scope="module", autouse=True)
def demo_site(django_db_setup, django_db_blocker):
    def build():
        with no_oembed_requests():
            build_site(HomePage.objects.get())

    with kept_for_the_module(django_db_blocker, build):
        yield


@pytest.fixture
def site(db, demo_site):
    return HomePage.objects.get()


@pytest.mark.django_db
def test_export_writes_folders_posts_and_images(site, tmp_path):
    out = tmp_path / "export"
    call_command("export_markdown", str(out), stdout=(stdout := Buffer()))
    files = read_tree(out)

    assert "notes/csapp/index.md" in files
    assert "notes/csapp/csapp-7-链接.md" in files
    assert "top-level.md" in files
    assert not any(name.startswith(("tags", "archive")) for name in files)
    # A file a post or series each, and home's intro as the root index.md.
    assert "index.md" in files
    assert sum(name.endswith(".md") and "/images/" not in name for name in files) == (
        PostPage.objects.count() + SeriesPage.objects.count() + 1
    )
    posts, series = PostPage.objects.count(), SeriesPage.objects.count()
    assert stdout.text.startswith(
        f"Exported {posts} posts, {series} series (2 of them drafts), 4 images → "
    )

    # Images: the original file, beside the Markdown that shows it.
    roofline = get_image_model().objects.get(title__icontains="roofline")
    name = Path(roofline.file.name).name
    with roofline.file.open("rb") as original:
        assert files[f"cuda/images/{name}"] == original.read()
    assert f"](images/{name} " in files["cuda/understanding-h100.md"].decode()

    index = files["misc/index.md"].decode()
    # The storage may have renamed it (cover_AbC1234.png) if the name was taken.
    cover = Path(SeriesPage.objects.get(slug="misc").cover.file.name).name
    shelf = Path(get_image_model().objects.get(title="a shelf").file.name).name
    assert index == (
        "---\n"
        "title: 'Misc: odds and ends'\n"
        "slug: misc\n"
        "ordering: explorer\n"
        f"cover: images/{cover}\n"
        "weight: 4\n"
        "---\n\n"
        "Things that fit **nowhere** else; see "
        "[the checklist](../cuda/cuda-performance-checklist.md).\n\n"
        "> [!TIP] Setup\n"
        "> Build with `make`.\n\n"
        "```bash\n"
        "make -j8\n"
        "```\n\n"
        "$$\n"
        "T = N / B\n"
        "$$\n\n"
        f'![shelf](images/{shelf} "The shelf")\n'
    )
    assert f"misc/images/{cover}" in files
    assert f"misc/images/{shelf}" in files


@pytest.mark.django_db
def test_front_matter_of_posts(site, tmp_path):
    export_site(tmp_path / "out")
    embed = (tmp_path / "out/misc/embed-post.md").read_text()
    assert front(embed) == (
        "---\n"
        "title: 'Embed: a video'\n"
        "slug: embed-post\n"
        "date: 2026-09-01\n"
        "updated: 2026-09-01\n"
        "tags:\n- cuda\n- video\n"
        "summary: A post with a video.\n"
        "comments: true\n"
        "weight: 1\n"
        "---\n"
    )
    assert "<!-- embed: https://www.youtube.com/watch?v=bDcPmZQwV3g -->" in embed
    assert "\n\n<!-- break -->\n\n" in embed
    assert '\n```bash title="run.sh" nolinenos\n' in embed
    assert "[checklist](../cuda/cuda-performance-checklist.md)" in embed

    draft = (tmp_path / "out/misc/draft-post.md").read_text()
    assert "\ndraft: true\n" in draft
    top = (tmp_path / "out/top-level.md").read_text()
    # Only permanent redirects are aliases.
    assert "\naliases:\n- /old/top-level-post\nweight: 5\n" in top


@pytest.mark.django_db
def test_the_latest_revision_is_exported(site, tmp_path):
    post = PostPage.objects.get(slug="top-level")
    post.title = "Retitled, not yet published"
    post.save_revision()
    export_site(tmp_path / "out")
    text = (tmp_path / "out/top-level.md").read_text()
    assert "title: Retitled, not yet published\n" in text
    assert "draft" not in text  # still live


@pytest.mark.django_db
def test_export_is_deterministic(site, tmp_path):
    export_site(tmp_path / "one")
    export_site(tmp_path / "two")
    assert read_tree(tmp_path / "one") == read_tree(tmp_path / "two")


@pytest.mark.django_db
def test_a_non_empty_outdir_needs_force(site, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty"):
        call_command("export_markdown", str(out))
    assert read_tree(out) == {"keep.txt": b"mine"}

    call_command("export_markdown", str(out), "--force", stdout=Buffer())
    files = read_tree(out)
    assert "keep.txt" not in files
    assert "top-level.md" in files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no leftovers


@pytest.mark.django_db
def test_an_empty_outdir_is_used(site, tmp_path):
    (tmp_path / "out").mkdir()
    export_site(tmp_path / "out")
    assert (tmp_path / "out/top-level.md").exists()


@pytest.mark.django_db
def test_a_failed_export_leaves_nothing_behind(site, tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("vault.exporter.tree.body_to_markdown", fail)
    with pytest.raises(RuntimeError):
        export_site(tmp_path / "out")
    assert list(tmp_path.iterdir()) == []
