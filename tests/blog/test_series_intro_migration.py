"""blog 0010: every rich-text series intro becomes one paragraph block, and back."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("blog", "0009_headings_and_languages")]
AFTER = [("blog", "0010_series_intro_is_a_body")]
INTRO = '<p><b>CUDA</b> 笔记，从 <a href="https://e.com">这里</a> 读起。</p>'


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def add_series(apps, slug, intro):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Page = apps.get_model("wagtailcore", "Page")
    SeriesPage = apps.get_model("blog", "SeriesPage")
    Revision = apps.get_model("wagtailcore", "Revision")
    content_type, _ = ContentType.objects.get_or_create(
        app_label="blog", model="seriespage"
    )
    home = Page.objects.get(depth=2)
    page = SeriesPage.objects.create(
        title=slug,
        slug=slug,
        path=f"{home.path}{Page.objects.filter(depth=3).count() + 9000:04d}",
        depth=3,
        url_path=f"{home.url_path}{slug}/",
        content_type=content_type,
        locale_id=home.locale_id,
        intro=intro,
    )
    Revision.objects.create(
        content_type=content_type,
        base_content_type_id=home.content_type_id,
        object_id=str(page.pk),
        content={"pk": page.pk, "title": slug, "intro": intro},
        created_at="2026-01-01T00:00:00Z",
    )
    return page.pk


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_rich_text_intros_become_one_paragraph_block_and_come_back():
    apps = migrate(BEFORE)
    try:
        full = add_series(apps, "cuda", INTRO)
        empty = add_series(apps, "notes", "")

        apps = migrate(AFTER)
        SeriesPage = apps.get_model("blog", "SeriesPage")
        Revision = apps.get_model("wagtailcore", "Revision")
        stream = SeriesPage.objects.get(pk=full).intro.raw_data
        assert [(b["type"], b["value"]) for b in stream] == [("paragraph", INTRO)]
        assert list(SeriesPage.objects.get(pk=empty).intro.raw_data) == []
        revision = Revision.objects.get(object_id=str(full))
        assert [
            (b["type"], b["value"]) for b in json.loads(revision.content["intro"])
        ] == [("paragraph", INTRO)]

        apps = migrate(BEFORE)
        SeriesPage = apps.get_model("blog", "SeriesPage")
        Revision = apps.get_model("wagtailcore", "Revision")
        assert SeriesPage.objects.get(pk=full).intro == INTRO
        assert SeriesPage.objects.get(pk=empty).intro == ""
        assert Revision.objects.get(object_id=str(full)).content["intro"] == INTRO
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
