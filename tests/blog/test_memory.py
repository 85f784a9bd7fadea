"""A worker hands back the heap memory a large request left free (glibc)."""

import gc

import pytest

from blog import memory


def resident_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


needs_glibc = pytest.mark.skipif(
    memory.free_heap_bytes() is None, reason="malloc_trim is glibc's"
)


@needs_glibc
def test_memory_a_request_left_free_goes_back_to_the_system():
    # Blocks under glibc's mapping threshold come from the heap; every other
    # one freed leaves holes that the heap's top cannot shrink past, as the
    # strings of a rendered post leave between those still alive.
    blocks = [bytes(16_000) + bytes([n % 256]) for n in range(8_000)]  # ~128 MB
    del blocks[::2]
    kept = memory.free_heap_bytes()
    before = resident_kib()
    assert kept > memory.FREE_BYTES_KEPT

    assert memory.give_back_memory() is True
    assert memory.free_heap_bytes() < kept
    assert resident_kib() < before - 40_000  # at least 40 MB handed back
    assert len(blocks) == 4_000  # the rest stay alive meanwhile


@pytest.fixture
def trims(monkeypatch):
    """Record the malloc_trim calls, made for real."""
    calls = []
    real = memory._libc()

    class Spy:
        def mallinfo2(self):
            return real.mallinfo2()

        def malloc_trim(self, pad):
            calls.append(pad)
            return real.malloc_trim(pad)

    monkeypatch.setattr(memory, "_libc", lambda: Spy())
    return calls


@needs_glibc
def test_a_page_served_keeps_its_memory_for_the_next_one(client, home, trims):
    # Whatever earlier tests in this process left, and the first render's.
    assert client.get("/").status_code == 200
    gc.collect()
    memory.give_back_memory()
    trims.clear()
    assert client.get("/").status_code == 200
    assert trims == []


@needs_glibc
def test_every_request_ends_with_the_check(client, home, trims, monkeypatch):
    monkeypatch.setattr(memory, "FREE_BYTES_KEPT", -1)  # trim after any request
    assert client.get("/").status_code == 200
    assert trims == [0]
