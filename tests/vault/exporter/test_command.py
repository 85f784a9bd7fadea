"""`manage.py export_markdown` on small sites: names it avoids, warnings, refusals."""

import pytest
from django.core.management import call_command

from tests.vault.exporter.sites import Buffer, add_post, add_series, read_tree
from vault.exporter.tree import ExportError, export_site


@pytest.mark.django_db
def test_reserved_names_are_not_used_for_pages(home, tmp_path):
    add_series(home, title="Images", slug="images", intro=[], ordering="explorer")
    add_post(home, [], title="Index", slug="index")
    export_site(tmp_path / "out")
    files = read_tree(tmp_path / "out")
    assert "images-2/index.md" in files
    assert "index-2.md" in files
    assert "slug: index\n" in files["index-2.md"].decode()


@pytest.mark.django_db
def test_what_cannot_be_exported_is_reported(home, tmp_path):
    gone = add_post(home, [], title="Gone", slug="gone")
    link = f'<p>See <a linktype="page" id="{gone.pk}">gone</a>.</p>'
    add_post(home, [{"type": "paragraph", "value": link}], title="L", slug="l")
    gone.delete()
    stderr = Buffer()
    call_command(
        "export_markdown", str(tmp_path / "out"), stdout=Buffer(), stderr=stderr
    )
    assert stderr.text == (
        f"warning: l.md: link to missing page {gone.pk} kept as text\n"
    )
    assert (tmp_path / "out/l.md").read_text().endswith("\nSee gone.\n")


def test_export_refuses_a_file_as_outdir(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError):
        export_site(tmp_path / "file")
