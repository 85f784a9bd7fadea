"""Name in Chinese what Wagtail's migrations created with English names.

Editors read them in the admin: the default workflow and its task ("提交给审核员
审批" on the publish menu) and the tree's root page in breadcrumbs.
"""

from django.db import migrations

NAMES = {"Moderators approval": "审核员审批"}
ROOT_TITLE = ("Root", "根目录")


def rename(apps, names, root_title):
    for model in ("Workflow", "Task"):
        manager = apps.get_model("wagtailcore", model).objects
        for old, new in names.items():
            manager.filter(name=old).update(name=new)
    old, new = root_title
    apps.get_model("wagtailcore", "Page").objects.filter(depth=1, title=old).update(
        title=new, draft_title=new
    )


def forwards(apps, schema_editor):
    rename(apps, NAMES, ROOT_TITLE)


def backwards(apps, schema_editor):
    rename(apps, {new: old for old, new in NAMES.items()}, ROOT_TITLE[::-1])


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0015_chinese_labels"),
        ("wagtailcore", "0098_apitoken"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
