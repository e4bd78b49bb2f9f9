"""How the readers ask the C library and numpy for memory: ordinary pages, large arrays from the heap, and
freed memory given back."""

from __future__ import annotations

import contextlib
import ctypes
import threading

import numpy as np


@contextlib.contextmanager
def small_pages():
    """Ask numpy for ordinary pages, not huge ones, while a file is read (or grades looked up); then as before.

    numpy asks Linux for 2 MB pages for every large array. While a run is read, its columns
    fill bit by bit between the blocks' many smaller arrays, and each huge page first touched
    then may wait for the kernel to make 2 MB of memory contiguous: reading ten million lines
    spent 3.7 s in the kernel that way, 0.9 to 1.6 s with ordinary pages, and looking up their
    grades 0.2 to 0.9 s, 0.1 with ordinary pages (measured on the project's 2-core virtual
    machines). The switch is numpy's own (``_set_madvise_hugepage``); where it is missing,
    nothing changes.
    """
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    switch = getattr(switch, "_set_madvise_hugepage", None)
    previous = switch(False) if switch is not None else None
    try:
        yield
    finally:
        if switch is not None:
            switch(previous)


def give_back_freed_memory() -> None:
    """Hand the C library's free heap memory back to the system (glibc; elsewhere nothing happens).

    A block's temporaries, and the grouping's, are freed once the lines are grouped, but glibc
    keeps freed memory below its mapping threshold (raised up to 32 MB as arrays come and go) in
    its heap, where the evaluation that follows does not always fit its own. Given back, ten
    million lines peaked at 809 MB instead of 829 to 914. (Mapping every large array on its own
    instead lowered the peak further but cost a third more time in page faults.)
    """
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError, TypeError):
        pass


_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_SETTLED = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 64 << 20}
"""What glibc's own adjustment of the two thresholds settles at once large arrays come and go
(DEFAULT_MMAP_THRESHOLD_MAX, and trimming at twice it): set again on leaving ``reused_memory``."""
_KEPT = 1 << 30
_reusing = threading.Lock()
_depth = [0]


def _mallopt(param: int, value: int) -> None:
    try:
        ctypes.CDLL(None).mallopt(param, value)
    except (AttributeError, OSError, TypeError):
        pass


@contextlib.contextmanager
def reused_memory():
    """While it lasts, the C library serves large arrays from its heap and keeps what they free for the next.

    glibc maps every array over 32 MB (ten million results' ranks, grades, keys) on its own and
    unmaps it when freed, so the next one is fresh memory again, each 4 KB page a page fault at its
    first touch, slow on the project's virtual machines. Evaluating all_trec on ten million lines
    took 358,000 page faults and 1.0 s of system time so, 216,000 and 0.6 s with the arrays' memory
    reused, at the same peak. On leaving (the last of nested or concurrent uses), the thresholds
    are set to what glibc's adjustment settles at and the freed memory is given back. Elsewhere
    than glibc nothing changes.
    """
    with _reusing:
        _depth[0] += 1
        if _depth[0] == 1:
            _mallopt(_M_MMAP_THRESHOLD, _KEPT)
            _mallopt(_M_TRIM_THRESHOLD, _KEPT)
    try:
        yield
    finally:
        with _reusing:
            _depth[0] -= 1
            if _depth[0] == 0:
                for param, value in _SETTLED.items():
                    _mallopt(param, value)
                give_back_freed_memory()
