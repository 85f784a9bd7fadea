from django.apps import AppConfig


class BackgroundConfig(AppConfig):
    name = "background"
    verbose_name = "后台任务"
