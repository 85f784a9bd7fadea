"""SeriesPage joins the blog app, on the table the series app made for it.

The model's state moves here (series 0003 forgets it); the table, its rows
and every page's content type id stay. The content type row is renamed from
``series.seriespage`` to ``blog.seriespage``, so Wagtail finds the pages'
specific class under its new app.
"""

import django.db.models.deletion
import wagtail.contrib.routable_page.models
import wagtail.fields
from django.conf import settings
from django.db import migrations, models


def rename_content_type(apps, schema_editor, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Page = apps.get_model("wagtailcore", "Page")
    found = ContentType.objects.filter(app_label=old, model="seriespage").first()
    if found is None:
        return  # A new database: contenttypes makes blog.seriespage after migrate.
    # A content type made for the new label before this ran, used by no page
    # (only a stray one could be), gives way to the one every page points at.
    stray = ContentType.objects.filter(app_label=new, model="seriespage").first()
    if stray is not None:
        if Page.objects.filter(content_type=stray).exists():
            raise RuntimeError(
                f"Pages use both {old}.seriespage and {new}.seriespage content types"
            )
        stray.delete()
    found.app_label = new
    found.save(update_fields=["app_label"])
    ContentType.objects.clear_cache()


def forwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "series", "blog")


def backwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "blog", "series")


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0007_posttag_date"),
        ("series", "0003_seriespage_moves_to_blog"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("wagtailcore", "0098_apitoken"),
        ("wagtailimages", "0027_image_description"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="SeriesPage",
                    fields=[
                        (
                            "page_ptr",
                            models.OneToOneField(
                                auto_created=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                parent_link=True,
                                primary_key=True,
                                serialize=False,
                                to=settings.WAGTAIL_PAGE_MODEL,
                            ),
                        ),
                        ("intro", wagtail.fields.RichTextField(blank=True)),
                        (
                            "ordering",
                            models.CharField(
                                choices=[
                                    ("explorer", "阅读顺序（按页面树中的顺序，可拖动调整）"),
                                    ("newest", "最新在前（按发布日期）"),
                                ],
                                default="explorer",
                                help_text="系列按阅读顺序；栏目一般按最新在前。",
                                max_length=16,
                            ),
                        ),
                        (
                            "source_path",
                            models.CharField(
                                blank=True, db_index=True, editable=False, max_length=1024
                            ),
                        ),
                        (
                            "source_hash",
                            models.CharField(blank=True, editable=False, max_length=64),
                        ),
                        (
                            "cover",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="wagtailimages.image",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "栏目 / 系列",
                        "verbose_name_plural": "栏目 / 系列",
                        "db_table": "series_seriespage",
                    },
                    bases=(
                        wagtail.contrib.routable_page.models.RoutablePageMixin,
                        "wagtailcore.page",
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
