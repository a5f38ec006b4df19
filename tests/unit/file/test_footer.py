"""The file tail: magic bytes, footer length, hostile and truncated footers."""

from __future__ import annotations

import io
import struct

import pytest

import parquet_core as pc
from parquet_core.cli import sample_path


def _sample() -> bytes:
    with open(sample_path(), "rb") as fh:
        return fh.read()


def test_sources_agree() -> None:
    data = _sample()
    a = pc.read_table(sample_path()).to_pydict()
    b = pc.read_table(data).to_pydict()
    c = pc.read_table(io.BytesIO(data)).to_pydict()
    assert a == b == c


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d[:6], "too small"),
    (lambda d: d[:-4] + b"XXXX", "magic"),
    (lambda d: b"XXXX" + d[4:], "start with"),
    (lambda d: d[:-8] + struct.pack("<I", 0xFFFFFF00) + b"PAR1", "footer length"),
    (lambda d: d[:-8] + struct.pack("<I", 0) + b"PAR1", "footer length"),
])
def test_bad_tails(mutate, match) -> None:
    with pytest.raises(pc.ParquetFormatError, match=match):
        pc.read_table(mutate(_sample()))


def test_encrypted_footer_is_an_encryption_error() -> None:
    data = _sample()
    with pytest.raises(pc.ParquetEncryptionError):
        pc.read_metadata(data[:-4] + b"PARE")


def test_garbage_footer_bytes() -> None:
    data = bytearray(_sample())
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    data[start:start + flen] = b"\xff" * flen
    with pytest.raises(pc.ParquetFormatError) as info:
        pc.read_metadata(bytes(data))
    assert "footer" in " ".join(getattr(info.value, "__notes__", [])) + str(info.value)


def test_truncated_footer_every_cut() -> None:
    """A footer cut short anywhere (its length field saying the cut length) is a ParquetError:
    a Thrift FileMetaData missing its tail lacks required fields or ends mid-value, so no cut
    may be accepted, silently or not, and no other exception type may escape."""
    data = _sample()
    (flen,) = struct.unpack("<I", data[-8:-4])
    start = len(data) - 8 - flen
    footer = data[start:-8]
    for cut in range(0, flen, max(1, flen // 200)):
        broken = data[:start] + footer[:cut] + struct.pack("<I", cut) + b"PAR1"
        with pytest.raises(pc.ParquetError):
            pc.read_table(broken)
        with pytest.raises(pc.ParquetError):
            pc.read_metadata(broken)


def test_truncated_file_every_cut() -> None:
    """The file cut short anywhere (the tail then points into the wrong bytes) is a ParquetError."""
    data = _sample()
    for size in [*range(0, 64), *range(64, len(data), max(1, len(data) // 200))]:
        with pytest.raises(pc.ParquetError):
            pc.read_table(data[:size])


def test_corrupted_page_bytes_never_crash() -> None:
    """Flipping bytes in the data area raises a ParquetError or reads; nothing else."""
    data = _sample()
    (flen,) = struct.unpack("<I", data[-8:-4])
    end = len(data) - 8 - flen
    for pos in range(4, end, 7):
        broken = bytearray(data)
        broken[pos] ^= 0xA5
        try:
            pc.read_table(bytes(broken))
        except pc.ParquetError:
            pass


def test_arrays_outlive_the_file(tmp_path) -> None:
    """Columns may view the memory-mapped file; they stay valid after close."""
    path = tmp_path / "copy.parquet"
    path.write_bytes(_sample())
    with pc.ParquetFile(path) as pf:
        table = pf.read()
    expected = pc.read_table(_sample()).to_pydict()
    path.unlink()
    assert table.to_pydict() == expected
