from django.apps import AppConfig


class SeriesConfig(AppConfig):
    """The old migrations of the series table, kept so existing databases migrate.

    No code: ``SeriesPage`` lives in ``blog`` (blog migration 0008 took the
    table over). The label stays ``series``: the migrations depend on it.
    """

    name = "series"
    verbose_name = "系列表的旧迁移（无代码）"
    default_auto_field = "django.db.models.BigAutoField"
