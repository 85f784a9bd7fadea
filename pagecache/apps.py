from django.apps import AppConfig


class PageCacheConfig(AppConfig):
    name = "pagecache"
