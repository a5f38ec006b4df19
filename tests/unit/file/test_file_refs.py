"""Resolving FILE values to bytes (LogicalTypes.md, FILE, "Resolution" and "checksum")."""

from __future__ import annotations

import hashlib
import zlib

import pytest

import parquet_core as pc
from parquet_core.file.file_refs import verify_checksum


def test_checksum_examples_from_the_spec_and_standard_check_values() -> None:
    # LogicalTypes.md's own example: MD5 of no bytes
    assert verify_checksum(b"", "MD5:d41d8cd98f00b204e9800998ecf8427e")
    # CRC-32 and CRC-32C check values for "123456789" (the usual CRC catalogue entries)
    assert verify_checksum(b"123456789", "CRC32:cbf43926")
    pytest.importorskip("crc32c")
    assert verify_checksum(b"123456789", "CRC32C:e3069283")
    assert verify_checksum(b"abc", "SHA-256:" + hashlib.sha256(b"abc").hexdigest())


def test_checksum_mismatch_raises_and_unknown_or_etag_is_ignored() -> None:
    with pytest.raises(pc.ParquetFormatError, match="mismatch"):
        verify_checksum(b"x", "MD5:d41d8cd98f00b204e9800998ecf8427e")
    assert not verify_checksum(b"x", "ETAG:\"abc-1\"")
    assert not verify_checksum(b"x", "BLAKE3:00")
    assert not verify_checksum(b"x", None)
    with pytest.raises(pc.ParquetFormatError):
        verify_checksum(b"x", "nodigest")


def test_inline_wins_over_locators(tmp_path) -> None:
    v = {"inline": b"", "uri": "missing/file", "offset": 5, "size": 1,
         "checksum": "MD5:d41d8cd98f00b204e9800998ecf8427e"}
    assert pc.resolve_file_ref(v) == b""
    assert pc.resolve_file_ref(None) is None


def test_external_uri_ranges_and_relative_paths(tmp_path) -> None:
    blob = bytes(range(256)) * 4
    (tmp_path / "blobs").mkdir()
    (tmp_path / "blobs" / "b.bin").write_bytes(blob)
    parquet = tmp_path / "t.parquet"
    absolute = (tmp_path / "blobs" / "b.bin").as_uri()
    crc = f"CRC32:{zlib.crc32(blob[10:30]):08x}"
    assert pc.resolve_file_ref({"uri": absolute}) == blob
    assert pc.resolve_file_ref({"uri": absolute, "size": 7}) == blob[:7]
    assert pc.resolve_file_ref({"uri": absolute, "offset": 10, "size": 20, "checksum": crc}) \
        == blob[10:30]
    # relative: against the Parquet file's own location
    assert pc.resolve_file_ref({"uri": "blobs/b.bin", "offset": 1, "size": 2}, parquet) == blob[1:3]
    with pytest.raises(ValueError, match="relative"):
        pc.resolve_file_ref({"uri": "blobs/b.bin"})
    with pytest.raises(pc.ParquetFormatError, match="past the end"):
        pc.resolve_file_ref({"uri": absolute, "offset": 1000, "size": 100})
    with pytest.raises(pc.ParquetFormatError, match="mismatch"):
        pc.resolve_file_ref({"uri": absolute, "size": 3, "checksum": crc})


def test_uri_through_fsspec_memory_filesystem() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/refs/x.bin", b"hello world")
    assert pc.resolve_file_ref({"uri": "memory://refs/x.bin", "offset": 6, "size": 5}) == b"world"
    assert pc.resolve_file_ref({"uri": "x.bin"}, "memory://refs/t.parquet") == b"hello world"
    assert pc.resolve_file_ref({"uri": "../x.bin", "size": 5},
                               "memory://refs/sub/t.parquet") == b"hello"


@pytest.mark.parametrize("value", [
    {"uri": "x", "offset": 3},            # offset without size
    {"offset": 3},                         # self-reference without size
    {"size": 3},                           # size alone resolves to nothing
    {},                                    # nothing
    {"uri": "", "offset": None, "inline": None},   # empty uri is "not set"
    {"uri": "x", "offset": -1, "size": 1},
    {"offset": 0, "size": -2},
])
def test_invalid_values_raise_or_become_null(value) -> None:
    with pytest.raises(pc.ParquetFormatError):
        pc.resolve_file_ref(value, b"PAR1")
    assert pc.resolve_file_ref(value, b"PAR1", invalid="null") is None


@pytest.mark.parametrize("kind", ["fifo", "folder", "missing"])
def test_a_uri_naming_a_fifo_a_folder_or_nothing_is_a_parquet_error(tmp_path, kind) -> None:
    """A FIFO is refused without being opened (opening it for reading would wait for a
    writer forever); OSErrors become a ParquetError naming the uri."""
    import os
    import signal

    target = tmp_path / "thing"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()

    def fire(*_):
        raise TimeoutError("blocked")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(30)
    try:
        with pytest.raises(pc.ParquetError, match="FILE uri .*thing.* cannot be read"):
            pc.resolve_file_ref({"uri": target.as_uri()})
        with pytest.raises(pc.ParquetError, match="cannot be read"):   # an I/O failure, not a null
            pc.resolve_file_ref({"uri": target.as_uri()}, invalid="null")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_crc32c_checksum_without_its_package_names_it(monkeypatch):
    """Without the crc32c package a CRC32C checksum raises CodecUnavailableError naming the
    package (it raised TypeError: the error was built without its package argument)."""
    import sys

    from parquet_core.errors import CodecUnavailableError
    from parquet_core.file.file_refs import verify_checksum

    monkeypatch.setitem(sys.modules, "crc32c", None)   # import crc32c -> ImportError
    with pytest.raises(CodecUnavailableError, match="crc32c"):
        verify_checksum(b"abc", "CRC32C:00000000")
