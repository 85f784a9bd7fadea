"""What the page cache keeps in the database: the purges that have yet to reach it."""

import uuid

from django.db import models


class PendingPurge(models.Model):
    """A purge of the page cache, written in the transaction of the change that asks it.

    It is deleted once its token keys are deleted from the cache. A row left
    behind — the cache was unreachable, or the process ended first — is made
    again by the next process that reads the cache (``pagecache.cache``), so a
    cache that comes back with its old entries never serves them. The key is a
    random id: a rolled-back row's id is never taken by another's.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    keys = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "待清除的缓存"
        verbose_name_plural = "待清除的缓存"

    def __str__(self):
        return f"{len(self.keys)} keys, {self.created:%Y-%m-%d %H:%M:%S}"
