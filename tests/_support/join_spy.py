"""A spy on the joined small-file read: how many files each joined run held."""

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
