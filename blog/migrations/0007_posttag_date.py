import datetime

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_post_dates(apps, schema_editor):
    PostPage = apps.get_model("blog", "PostPage")
    PostTag = apps.get_model("blog", "PostTag")
    PostTag.objects.update(
        date=Subquery(
            PostPage.objects.filter(pk=OuterRef("content_object_id")).values("date")
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0006_listing_indexes"),
        (
            "taggit",
            "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx",
        ),
    ]

    operations = [
        # Every row takes its post's date just below; the default only fills
        # the column while it is added.
        migrations.AddField(
            model_name="posttag",
            name="date",
            field=models.DateField(default=datetime.date(1970, 1, 1), editable=False),
            preserve_default=False,
        ),
        migrations.RunPython(copy_post_dates, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="posttag",
            index=models.Index(
                fields=["tag", "-date", "-content_object"], name="posttag_tag_date_idx"
            ),
        ),
    ]
