"""``support.zeros.gzip_of_zeros``, the gzip bomb the readers' limits are tested with, is a gzip file
that unpacks to its zeros: the readers stop before its end, so its checksum and length are read here."""

from __future__ import annotations

import gzip

import pytest

from support.zeros import MIB, gzip_of_zeros


@pytest.mark.parametrize("n_bytes", [0, MIB, 4 * MIB])
def test_it_unpacks_to_its_zeros_with_a_checksum_and_length_gzip_accepts(n_bytes):
    packed = gzip_of_zeros(n_bytes)
    assert gzip.decompress(packed) == bytes(n_bytes)  # gzip checks the CRC-32 and the length at the end
    assert len(packed) <= 64 + n_bytes // MIB * 1100  # about a KiB per MiB


def test_a_length_that_is_not_a_whole_number_of_mib_is_refused():
    with pytest.raises(ValueError, match="MiB"):
        gzip_of_zeros(MIB + 1)
