from django.db import models


class WorkerBeat(models.Model):
    """A task worker that is alive: it writes ``seen_at`` every few seconds.

    A task left running by a worker whose beat stopped (the process killed,
    its host gone) is put back in the queue (``background.workers``).
    """

    worker_id = models.CharField(max_length=64, primary_key=True)
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = "任务进程"
        verbose_name_plural = "任务进程"

    def __str__(self) -> str:
        return self.worker_id
