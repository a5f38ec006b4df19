"""parse_created_by's cache returns what parsing the string afresh returns."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parquet_core.metadata import compat
from parquet_core.metadata.compat import WriterVersion, parse_created_by

_WRITERS = st.one_of(
    st.none(), st.text(max_size=40),
    st.builds(lambda app, ver, tail: f"{app} version {ver}{tail}",
              st.sampled_from(["parquet-mr", "parquet-cpp-arrow", "impala", "PARQUET-MR", "x"]),
              st.from_regex(r"\d{1,3}(\.\d{1,3}){0,4}", fullmatch=True), st.text(max_size=10)),
    st.text(min_size=600, max_size=700))   # longer than the cache keeps


def _fresh(s: str | None) -> WriterVersion:
    """An independent parse: the regular expression applied directly."""
    m = compat._CREATED_BY.match(s or "")
    if not m:
        return WriterVersion("", (0, 0, 0))
    parts = [int(p) for p in (m.group("ver") or "0").split(".")[:3]] + [0, 0, 0]
    return WriterVersion(m.group("app").lower(), tuple(parts[:3]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_WRITERS, min_size=1, max_size=5))
def test_cached_equals_fresh(strings: list[str | None]) -> None:
    for s in strings + strings:   # the second round is served from the cache
        assert parse_created_by(s) == _fresh(s)


def test_cache_is_bounded() -> None:
    for i in range(compat._PARSED_MAX_ENTRIES * 3):
        assert parse_created_by(f"w{i} version 1.{i}") == WriterVersion(f"w{i}", (1, i, 0))
    assert len(compat._PARSED) <= compat._PARSED_MAX_ENTRIES
    parse_created_by("y" * (compat._PARSED_MAX_LEN + 1))
    assert "y" * (compat._PARSED_MAX_LEN + 1) not in compat._PARSED
