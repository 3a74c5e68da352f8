"""Freed memory kept for reuse while a partition is measured, in processes that give it back at once.

Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``, so
that the worker hands freed memory back to the system. glibc's thresholds
are then fixed: every array over 128 KiB is mapped fresh and unmapped when
freed, and its pages are faulted in (zeroed by the kernel) at each use. A
partition of 1e6 rows took about 36,000 page faults that way, 0.15 s of its
0.35 s. :func:`reused_memory` raises both thresholds for the duration of the
work, so the layout's arrays reuse the memory of those freed before them,
then puts back the values the process started with and trims, as the
worker asked. Nothing changes in a process started without that setting
(whose thresholds glibc adapts on its own), nor off glibc.
"""

import os
import threading
from contextlib import contextmanager

#: glibc's mallopt parameters, and its default mmap threshold
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_DEFAULT_MMAP_THRESHOLD = 128 * 1024
#: the thresholds while a partition is measured: arrays up to this size
#: come from (and go back to) the heap
_ROOMY = 1 << 30

_lock = threading.Lock()
_inside = 0  # threads inside reused_memory(): the last one out restores


def _libc():
    """glibc's functions, or None off glibc."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt, libc.malloc_trim  # noqa: B018 - glibc has both
    except (OSError, AttributeError):
        return None
    return libc


def _started_with():
    """``(trim, mmap)`` thresholds this process was started with, or None if none was fixed."""
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim is None:
        return None
    try:
        mmap = int(os.environ.get("MALLOC_MMAP_THRESHOLD_", _DEFAULT_MMAP_THRESHOLD))
        return int(trim), mmap
    except ValueError:
        return None


@contextmanager
def reused_memory():
    """Within: freed memory is reused, not given back; after: the process's settings again.

    Only in a process started with ``MALLOC_TRIM_THRESHOLD_`` (as Dask's
    workers are) and on glibc; elsewhere it does nothing.
    """
    global _inside
    started = _started_with()
    libc = None if started is None else _libc()
    if libc is None:
        yield
        return
    with _lock:
        if _inside == 0:
            libc.mallopt(_M_MMAP_THRESHOLD, _ROOMY)
            libc.mallopt(_M_TRIM_THRESHOLD, _ROOMY)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                trim, mmap = started
                libc.mallopt(_M_TRIM_THRESHOLD, trim)
                libc.mallopt(_M_MMAP_THRESHOLD, mmap)
                libc.malloc_trim(0)
