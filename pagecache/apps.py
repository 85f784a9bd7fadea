from django.apps import AppConfig


class PageCacheConfig(AppConfig):
    name = "pagecache"
    verbose_name = "页面缓存"

    def ready(self):
        from pagecache import purge

        purge.connect()
