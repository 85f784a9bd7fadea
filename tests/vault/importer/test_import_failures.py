"""A file that cannot be imported fails alone, named with its line; the rest lands."""

import pytest
from wagtail.images import get_image_model

from blog.models import PostPage
from tests.factories import SeriesPageFactory
from tests.vault.importer.conftest import draw
from tests.vault.importer.runs import (
    children,
    line_of,
    outcomes,
    post,
    stored_files,
    totals,
)
from vault.importer.errors import FileFailed
from vault.importer.saving import SaveMixin

pytestmark = pytest.mark.django_db


# Failures ----------------------------------------------------------------------


def test_bad_files_fail_alone_and_are_named_with_their_line(
    broken_vault, run_import, home
):
    # A section made by hand holds the slug: a post can't take it over, it
    # gets a free one.
    SeriesPageFactory(parent=home, slug="clash", title="Made by hand")
    (broken_vault / "clash.md").write_text(
        "---\ntitle: Clash\n---\n\n![unique](clash.png)\n", "utf-8"
    )
    draw(broken_vault / "clash.png", (3, 3), (1, 2, 3))
    before_images = get_image_model().objects.count()
    files = stored_files()
    run = run_import(broken_vault)
    assert run.error is not None
    assert "1 of the files failed" in str(run.error)
    out = run.out
    # A formula KaTeX rejects does not fail its file: it is kept, with a warning.
    latex_line = line_of(broken_vault / "bad-latex.md", "broken one")
    assert (
        f"bad-latex.md:{latex_line}: formula kept with an error: KaTeX parse error:"
        in out
    )
    assert "bad-utf8.md:6: not valid UTF-8: byte 0xff at column 5" in out
    # A stray line in the front matter is dropped; the file imports.
    assert (
        "bad-frontmatter.md:3: front matter line dropped, not key: value: "
        "': this line is no key'"
    ) in out
    assert (
        "clash.md: slug taken: 'clash' is used by /clash/ (SeriesPage); "
        "using 'clash-2'" in out
    )
    assert outcomes(out)["created"] == (5, 0)
    assert outcomes(out)["failed"] == (1, 0)
    assert "also-good.md:5: broken link to missing.md: no such file" in out
    assert "also-good.md:7: missing image: images/nowhere.png" in out
    assert (
        "also-good.md:9: broken link to bad-utf8.md: that page was not imported" in out
    )
    assert {p.title for p in PostPage.objects.filter(source_path__gt="")} == {
        "A good post",
        "Also good",
        "Clash",
        "Broken",
        "Bad LaTeX",
    }
    assert post("clash.md").slug == "clash-2"
    assert get_image_model().objects.count() == before_images + 1
    assert len(stored_files() - files) == 1
    good = post("good.md")
    assert f'<a linktype="page" id="{good.pk}">the good post</a>' in str(
        post("also-good.md").body.raw_data[0]["value"]
    )


def test_a_file_that_fails_while_saving_leaves_no_image(
    tmp_path, run_import, monkeypatch
):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "late.md").write_text("![unique](late.png)\n", "utf-8")
    draw(tmp_path / "v" / "late.png", (3, 3), (1, 2, 3))
    before_images = get_image_model().objects.count()
    files = stored_files()

    def fail(self, page, source):
        raise FileFailed("cannot redirect")

    # The last step of saving a page fails, after its images were made.
    monkeypatch.setattr(SaveMixin, "_redirects", fail)
    run = run_import(tmp_path / "v")
    assert "late.md: cannot redirect" in run.out
    assert outcomes(run.out)["failed"] == (1, 0)
    assert get_image_model().objects.count() == before_images
    assert stored_files() == files


def test_a_folder_whose_index_fails_still_holds_its_posts(broken_vault, run_import):
    folder = broken_vault / "series"
    folder.mkdir()
    (folder / "index.md").write_bytes(b"---\ntitle: S\n---\nIntro \xff.\n")
    (folder / "post.md").write_text("# In the series\n\nText.\n", "utf-8")
    run = run_import(broken_vault)
    assert "series/index.md:4: not valid UTF-8: byte 0xff at column 7" in run.out
    assert outcomes(run.out)["failed"] == (1, 1)
    series = post("series/post.md").get_parent().specific
    assert (series.title, series.source_path) == ("series", "series")
    assert series.source_hash == ""  # index.md is tried again next time


def test_fixing_a_failed_file_links_the_files_that_point_at_it(
    broken_vault, run_import
):
    run_import(broken_vault)
    bad = broken_vault / "bad-utf8.md"
    bad.write_bytes(bad.read_bytes().replace(b"\xff\xfe", b"bytes"))
    run = run_import(broken_vault)
    assert outcomes(run.out)["created"] == (1, 0)
    assert outcomes(run.out)["updated"] == (1, 0)  # also-good.md, for its link
    fixed = post("bad-utf8.md")
    body = post("also-good.md").body.raw_data[0]["value"]
    assert f'<a linktype="page" id="{fixed.pk}">the bad one</a>' in body


def test_a_dry_run_writes_nothing_and_reports_the_same(vault, run_import):
    before = totals()
    files = stored_files()
    run = run_import(vault, "--dry-run")
    assert run.error is None
    assert totals() == before
    assert "Dry run: nothing was written." in run.out
    assert outcomes(run.out)["created"] == (11, 5)
    assert "images created: 3" in run.out
    assert stored_files() == files


def test_posts_of_the_same_date_list_newest_first_in_reverse_reading_order(
    tmp_path, run_import, client
):
    section = tmp_path / "section"
    section.mkdir()
    (section / "index.md").write_text("---\nordering: newest\n---\n", "utf-8")
    for name, weight in (("alpha", 2), ("beta", 1)):
        (section / f"{name}.md").write_text(
            f"---\ntitle: Post {name}\ndate: 2026-09-01\nweight: {weight}\n---\n\nText.\n",
            "utf-8",
        )
    assert run_import(tmp_path).error is None
    assert children("/home/section/") == ["beta", "alpha"]
    html = client.get("/section/").content.decode()
    # Read beta, then alpha: alpha is the newer of the two.
    assert html.index("Post alpha") < html.index("Post beta")
