from django.apps import AppConfig


class DjangoRenderStore:
    """Keep rendered math and code in the shared `renders` cache.

    Looked up per call, so each thread uses its own cache connection.
    """

    def get(self, key, default=None):
        from django.core.cache import caches

        return caches["renders"].get(key, default)

    def set(self, key, value):
        from django.core.cache import caches

        caches["renders"].set(key, value)

    def get_many(self, keys):
        from django.core.cache import caches

        return caches["renders"].get_many(keys)

    def set_many(self, data):
        from django.core.cache import caches

        return caches["renders"].set_many(data)


RENDER_LIMITS = {
    "MATH_MAX_OUTPUT_BYTES",
    "MATH_TIMEOUT_SECONDS",
    "RENDER_CACHE_MAX_ENTRY_BYTES",
}


def apply_render_limits(setting: str | None = None, **kwargs):
    """Bound renders by the settings (again, when a test changes one)."""
    from django.conf import settings

    from rendering import cache, math

    if setting is not None and setting not in RENDER_LIMITS:
        return
    math.set_limits(
        max_output_bytes=settings.MATH_MAX_OUTPUT_BYTES,
        timeout_seconds=settings.MATH_TIMEOUT_SECONDS,
    )
    cache.set_max_entry_bytes(settings.RENDER_CACHE_MAX_ENTRY_BYTES)


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = "博客"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.test.signals import setting_changed
        from wagtail.signals import page_published

        from blog import avif, purging, search_index, warming, writing
        from blog.models import PostPage
        from pagecache import purge
        from rendering.cache import set_store

        set_store(DjangoRenderStore())
        avif.register()
        apply_render_limits()
        setting_changed.connect(apply_render_limits, dispatch_uid="render-limits")
        purging.connect()
        # The page cache's purges first (connecting twice is a no-op): the
        # warm-up a publish starts after the commit then keeps its renders
        # under the tokens the purge left, not the ones it deletes.
        purge.connect()
        warming.connect()
        writing.connect()
        page_published.connect(
            search_index.reindex_published, sender=PostPage, dispatch_uid="search"
        )
