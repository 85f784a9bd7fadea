"""Hand the memory a large request freed back to the system (glibc).

A math-heavy post is megabytes of markup, and its Brotli encoder and the
strings around it are freed once it is sent. glibc keeps freed memory in the
process for later, and after a large block is freed it raises its threshold
for serving blocks from their own mappings, so the next large ones come from
the heap and stay there: a worker that has served such a post and a feed held
10 to 20 MB more than it used. When a request ends with more than
``FREE_BYTES_KEPT`` free in the heap, ``malloc_trim`` returns it (under a
millisecond, only after such requests; reading the figure costs a microsecond).

Elsewhere (musl, macOS) there is no ``malloc_trim`` and this does nothing.
"""

import ctypes
import ctypes.util
import functools

FREE_BYTES_KEPT = 16 * 1024 * 1024


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
