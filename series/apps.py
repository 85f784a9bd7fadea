from django.apps import AppConfig


class SeriesConfig(AppConfig):
    name = "series"
    verbose_name = "栏目与系列"
    default_auto_field = "django.db.models.BigAutoField"
