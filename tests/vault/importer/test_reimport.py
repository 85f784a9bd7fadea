"""Importing again: unchanged files are skipped, changed ones revised, pages kept."""

import pytest
from wagtail.models import Page

from blog.models import PostPage
from tests.factories import PostPageFactory, SeriesPageFactory
from tests.vault.importer.runs import (
    MAIN,
    children,
    outcomes,
    post,
    totals,
)
from vault.importer import Importer

pytestmark = pytest.mark.django_db


# Re-import -------------------------------------------------------------------


def test_importing_twice_duplicates_nothing(vault, run_import):
    run_import(vault)
    before = totals()
    again = run_import(vault)
    assert again.error is None
    assert totals() == before
    assert outcomes(again.out)["unchanged"] == (11, 5)
    assert outcomes(again.out)["created"] == (0, 0)
    assert "redirects created: 0" in again.out


def test_a_changed_file_is_updated_with_a_new_revision(vault, run_import):
    run_import(vault)
    revisions = {p.pk: p.revisions.count() for p in Page.objects.all()}
    warp_file = vault / "cuda/10-warp-shuffle.md"
    warp_file.write_text(warp_file.read_text("utf-8") + "\n新加的一段。\n", "utf-8")
    run = run_import(vault)
    assert outcomes(run.out)["updated"] == (1, 0)
    assert outcomes(run.out)["unchanged"] == (10, 5)
    warp = post("cuda/10-warp-shuffle.md")
    assert "新加的一段。" in str(warp.body)
    for page in Page.objects.all():
        expected = revisions[page.pk] + (1 if page.pk == warp.pk else 0)
        assert page.revisions.count() == expected, page.url_path


def test_a_new_target_makes_its_linking_file_import_again(vault, run_import):
    run_import(vault)
    (vault / "cuda" / "does-not-exist.md").write_text("# Now it does\n", "utf-8")
    run = run_import(vault)
    assert outcomes(run.out)["created"] == (1, 0)
    assert outcomes(run.out)["updated"] == (1, 0)
    target = post("cuda/does-not-exist.md")
    warp = post("cuda/10-warp-shuffle.md").body.raw_data[0]["value"]
    assert f'<a linktype="page" id="{target.pk}">does-not-exist</a>' in warp


def test_a_post_made_in_the_admin_is_taken_over_by_the_file_of_its_slug(
    tmp_path, run_import, home
):
    """Restoring an export into the same site revises its pages, never fails."""
    made = PostPageFactory(parent=home, slug="restored", title="Made by hand")
    revisions = made.revisions.count()
    (tmp_path / "restored.md").write_text(
        "---\ntitle: From the file\ndate: 2026-09-01\n---\n\nBody $x$.\n", "utf-8"
    )
    run = run_import(tmp_path)
    assert run.error is None, run.out
    page = PostPage.objects.get(pk=made.pk)
    assert page.title == "From the file"
    assert page.source_path == "restored.md"
    assert page.revisions.count() == revisions + 1
    assert PostPage.objects.filter(slug="restored").count() == 1


# Keeping what exists (load_demo) ---------------------------------------------


def test_keep_existing_adds_only_what_is_missing(vault, home):
    cuda = SeriesPageFactory(
        parent=home, slug="cuda", title="My CUDA", ordering="explorer"
    )
    mine = PostPageFactory(parent=cuda, slug="10-warp-shuffle", title="My shuffle")
    report = Importer(vault, parent=home, keep_existing=True).run()
    assert report.failed == 0, report.format()
    cuda.refresh_from_db()
    mine.refresh_from_db()
    assert (cuda.title, cuda.ordering) == ("My CUDA", "explorer")
    assert mine.title == "My shuffle"
    assert report.count("unchanged") == 2
    assert report.count("created") == 14
    # The pages added follow the one kept, in reading order; links reach it.
    assert children("/home/cuda/") == ["10-warp-shuffle", "2-shared-memory", "cute"]
    assert f'href="{mine.url}"' in str(post(MAIN).body)


def test_keep_existing_never_updates_a_page_it_made(vault, home):
    Importer(vault, parent=home, keep_existing=True).run()
    before = totals()
    title = post(MAIN).title
    source = vault / MAIN
    source.write_text(source.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    report = Importer(vault, parent=home, keep_existing=True).run()
    assert report.count("unchanged") == 16
    assert totals() == before
    assert post(MAIN).title == title
    assert "One more line" not in str(post(MAIN).body)


def test_keep_existing_fails_a_file_whose_slug_holds_another_type(vault, home):
    PostPageFactory(parent=home, slug="notes", title="Notes")
    report = Importer(vault, parent=home, keep_existing=True).run()
    assert "notes/index.md: /notes/ already exists as a PostPage, not a SeriesPage" in [
        str(issue) for issue in report.failures
    ]
    # What lies below the folder is not imported either.
    assert not PostPage.objects.filter(source_path__startswith="notes/").exists()
