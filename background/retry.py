"""Tasks retried with backoff when they raise.

``@retried()`` makes a django-tasks task of a function. When a run raises,
the task is enqueued again to run later (after ``backoff`` seconds, four
times that after the next failure, …) and the failed run is recorded as
failed, with its error, as usual; after ``attempts`` runs it is left failed
and the admin's 后台任务 report lists it. The function must be idempotent:
a run that did half its work and failed is run again whole.

A backend that cannot defer (the immediate one, in tests) retries at once.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from django.utils import timezone
from django_tasks import task

logger = logging.getLogger(__name__)

ATTEMPTS = 4
BACKOFF_SECONDS = 5.0


def retry_delay(attempt: int, backoff: float = BACKOFF_SECONDS) -> float:
    """Seconds before the run after failed run number ``attempt`` (from 1)."""
    return backoff * 4 ** (attempt - 1)


def retried(*, attempts: int = ATTEMPTS, backoff: float = BACKOFF_SECONDS, **options):
    """Make a task of the function, retried up to ``attempts`` runs in all.

    ``options`` go to django-tasks' ``task()`` (priority, queue_name …). The
    task takes one keyword more, ``attempt``, the number of this run.
    """

    def decorate(function):
        @functools.wraps(function)
        def run(*args, attempt: int = 1, **kwargs):
            try:
                return function(*args, **kwargs)
            except Exception:
                if attempt >= attempts:
                    logger.exception(
                        "%s failed on run %d of %d", made.name, attempt, attempts
                    )
                    raise
                delay = retry_delay(attempt, backoff)
                logger.warning(
                    "%s failed on run %d of %d; again in %.0f s",
                    made.name,
                    attempt,
                    attempts,
                    delay,
                    exc_info=True,
                )
                _again(made, args, kwargs, attempt + 1, delay)
                raise

        made = task(**options)(run)
        return made

    return decorate


def _again(made, args, kwargs, attempt: int, delay: float) -> None:
    if made.get_backend().supports_defer:
        made = made.using(run_after=timezone.now() + timedelta(seconds=delay))
    made.enqueue(*args, attempt=attempt, **kwargs)
