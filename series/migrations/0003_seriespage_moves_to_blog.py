"""SeriesPage moves to the blog app: forget it here, keep its table and rows.

Blog migration 0008 takes the model over under the same table name.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("series", "0002_source_path"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="SeriesPage")],
            database_operations=[],
        ),
    ]
