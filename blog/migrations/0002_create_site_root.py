"""Create the site root: a HomePage with its tag index and archive.

A freshly migrated database is then a working, empty blog.
"""

from django.db import migrations

HOME_PATH = "00010001"


def create_site_root(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Locale = apps.get_model("wagtailcore", "Locale")
    Page = apps.get_model("wagtailcore", "Page")
    Site = apps.get_model("wagtailcore", "Site")

    # Replace Wagtail's "Welcome" page and the site that points at it.
    Site.objects.filter(root_page__path=HOME_PATH).delete()
    Page.objects.filter(path=HOME_PATH).delete()
    locale = Locale.objects.order_by("pk").first()

    def create(model_name, **fields):
        model = apps.get_model("blog", model_name)
        content_type, _ = ContentType.objects.get_or_create(
            app_label="blog", model=model_name.lower()
        )
        return model.objects.create(
            content_type=content_type,
            locale=locale,
            live=True,
            draft_title=fields["title"],
            **fields,
        )

    home = create(
        "HomePage",
        title="首页",
        slug="home",
        path=HOME_PATH,
        depth=2,
        numchild=2,
        url_path="/home/",
        author="",
    )
    create(
        "TagIndexPage",
        title="标签",
        slug="tags",
        path=HOME_PATH + "0001",
        depth=3,
        numchild=0,
        url_path="/home/tags/",
    )
    create(
        "ArchivePage",
        title="归档",
        slug="archive",
        path=HOME_PATH + "0002",
        depth=3,
        numchild=0,
        url_path="/home/archive/",
    )
    Site.objects.create(
        hostname="localhost",
        port=80,
        root_page=home,
        is_default_site=True,
        site_name="",
    )
    Page.objects.filter(depth=1).update(numchild=Page.objects.filter(depth=2).count())


def remove_site_root(apps, schema_editor):
    Page = apps.get_model("wagtailcore", "Page")
    Page.objects.filter(path__startswith=HOME_PATH).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("blog", "0001_initial"),
        ("wagtailcore", "0098_apitoken"),
    ]

    operations = [migrations.RunPython(create_site_root, remove_site_root)]
