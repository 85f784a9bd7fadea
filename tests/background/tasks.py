"""Tasks for the tests of the queue: they record their runs in the cache."""

from django.core.cache import cache

from background.retry import retried


class Flaky(Exception):
    """A failure the task was told to have."""


def runs(name: str) -> int:
    return cache.get(f"runs:{name}", 0)


@retried(attempts=3, backoff=60)
def fails_until(name: str, succeeds_on: int) -> str:
    """Fail on every run before run number ``succeeds_on``."""
    run = cache.get(f"runs:{name}", 0) + 1
    cache.set(f"runs:{name}", run)
    if run < succeeds_on:
        raise Flaky(f"{name}: run {run} fails")
    return f"{name} done on run {run}"


@retried()
def hangs_the_first_time(folder: str) -> str:
    """Hang on the first run (its worker is killed meanwhile); finish the next."""
    from pathlib import Path

    started = Path(folder) / "started"
    if not started.exists():
        started.write_text("1")
        import time

        time.sleep(600)
    (Path(folder) / "finished").write_text("1")
    return "finished"
