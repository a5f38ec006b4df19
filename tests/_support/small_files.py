"""Helpers for the joined small-file read tests: a spy on the joined runs, a damaged file."""

from __future__ import annotations

import pytest

from parquet_core.file import small_files


def count_joins(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Wrap ``small_files.join_light_reads``; the list it returns gets the length of every
    run of files joined (empty when no run was joined)."""
    seen: list[int] = []
    real = small_files.join_light_reads

    def counting(reads):   # type: ignore[no-untyped-def]
        seen.append(len(reads))
        return real(reads)

    monkeypatch.setattr(small_files, "join_light_reads", counting)
    return seen


def index_past_dictionary(path: str) -> bytes:
    """The bytes of the pyarrow-written file *path* with every index of its first column's
    data page past its dictionary of three entries (a 2-bit page: every index 3)."""
    import pyarrow.parquet as pq

    from parquet_core.page.reader import _parse_header

    with open(path, "rb") as f:
        raw = bytearray(f.read())
    page_at = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset
    header, hlen = _parse_header(memoryview(bytes(raw)), page_at)
    body = page_at + hlen
    width_at = body + 4 + int.from_bytes(raw[body:body + 4], "little")
    end = body + header.compressed_page_size
    assert raw[width_at] == 2
    raw[width_at + 2:end] = b"\xff" * (end - width_at - 2)     # every index 3: past the 3 entries
    return bytes(raw)
