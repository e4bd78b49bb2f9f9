"""Gzip files of nothing but zeros: the bombs the readers' limits are tested with."""

from __future__ import annotations

import struct
import zlib

MIB = 1 << 20


def gzip_of_zeros(n_bytes: int) -> bytes:
    """A valid gzip file of ``n_bytes`` zero bytes (a whole number of MiB), about a KiB per MiB.

    A MiB of zeros is packed once by a fresh packer, so its bytes refer to nothing before them, and
    ended with a full flush, which ends them on a byte boundary: the same bytes may then follow one
    another as often as there are MiB. Packing a GiB a MiB at a time took 1.4 s of CPU; this takes
    some 0.3 s, most of it the checksum over the GiB (``tests/test_zeros.py`` unpacks one).
    """
    if n_bytes % MIB:
        raise ValueError("a whole number of MiB")
    zeros = bytes(MIB)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate: the gzip frame is ours
    one_mib = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(n_bytes // MIB):
        crc = zlib.crc32(zeros, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, no time, best, unknown OS
    trailer = struct.pack("<II", crc, n_bytes & 0xFFFFFFFF)
    return header + one_mib * (n_bytes // MIB) + packer.flush() + trailer
