"""Give every rendering test an empty render cache and zeroed counters."""

import pytest

from rendering import cache


@pytest.fixture(autouse=True)
def fresh_store():
    """Swap in an empty LRU store, so a test sees only its own renders."""
    store = cache.LRUStore()
    cache.reset_stats()
    with cache.use_store(store):
        yield store
    cache.reset_stats()
