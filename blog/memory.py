"""Hand free heap memory back to the system when a worker holds too much (glibc).

glibc keeps freed memory in the process for later, and after a large block
is freed it raises its threshold for serving blocks from mappings of their
own, so later large ones come from the heap and stay there. Serving a
math-heavy post (megabytes of markup, a Brotli encoder) and a feed leaves up
to about 25 MB free in a worker's heap, which the next such request reuses.
Giving that back after every request was measured (`make bench`, 2 cores):
it saved some 20 MB of RSS but cost the post page 4-5 ms and the feed 2 ms,
as the next request faults the pages in again. So a worker keeps up to
``FREE_BYTES_KEPT`` free, what its own pages reuse, and ``malloc_trim``
returns the rest when a request ends with more: a cold render of many
bodies, a large import or export in the admin. Reading the figure after
each request costs a microsecond.

Elsewhere (musl, macOS) there is no ``malloc_trim`` and this does nothing.
"""

import ctypes
import ctypes.util
import functools

FREE_BYTES_KEPT = 32 * 1024 * 1024


class _MallInfo2(ctypes.Structure):
    # glibc's struct mallinfo2 (2.33 and later), every field a size_t.
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in [
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        ]
    ]


@functools.cache
def _libc():
    """Return glibc with mallinfo2 and malloc_trim, or None elsewhere."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallinfo2.restype = _MallInfo2
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError, TypeError):
        return None
    return libc


def free_heap_bytes() -> int | None:
    """Return the bytes free in the heap's chunks, or None without glibc."""
    libc = _libc()
    return None if libc is None else libc.mallinfo2().fordblks


def give_back_memory(**kwargs) -> bool:
    """Return free heap memory to the system if much is kept; whether it was.

    Connected to ``request_finished``.
    """
    libc = _libc()
    if libc is None or libc.mallinfo2().fordblks <= FREE_BYTES_KEPT:
        return False
    libc.malloc_trim(0)
    return True
