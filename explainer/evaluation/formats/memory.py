"""How the readers ask the C library and numpy for memory: ordinary pages, and freed memory given back."""

from __future__ import annotations

import contextlib
import ctypes

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
