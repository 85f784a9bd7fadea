from django.apps import AppConfig


class ServingConfig(AppConfig):
    """The request-serving middleware: no models, no migrations."""

    name = "serving"
    verbose_name = "请求处理"
