"""The lean whole-row-group count check (``_counts_plausible``) never accepts a chunk the
chunk-by-chunk rules refuse, and a row group is refused exactly when some chunk breaks them.

The chunk-by-chunk rules (``_check_chunk_counts``) are the reference here: each is the
spec's (a page holds at most 2**31 - 1 values, a leaf without repetition one slot per
row, pages inside the file).  Random chunks are drawn from values at and around every
boundary, None included.
"""

from __future__ import annotations

import random
import types

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetFormatError
from parquet_core.metadata import wrappers
from parquet_core.metadata.statistics import Statistics, StatisticsDecoder

_BIG = 2**31 - 1
_FILE = 1000


def _chunk(rnd: random.Random) -> types.SimpleNamespace:
    def pick(*values):
        return rnd.choice(values)

    md = types.SimpleNamespace(
        num_values=pick(None, 0, 9, 10, 11, 10 * _BIG + 1),
        total_compressed_size=pick(None, -1, 0, 1, 10, 500, 999, 1000),
        total_uncompressed_size=pick(None, -1, 0, 40),
        data_page_offset=pick(None, -1, 0, 4, 500, 999, 1000),
        dictionary_page_offset=pick(None, None, None, -1, 0, 4, 300, 999, 1000),
        type=pick(2, 2, 2, 1, None),
    )
    encrypted = rnd.random() < 0.05
    return types.SimpleNamespace(meta_data=None if encrypted else md,
                                 file_path=pick(None, None, None, None, "", "other.parquet"),
                                 crypto_metadata=pick(None, None, None, None, "footer key"))


def _leaf(repeated: bool) -> types.SimpleNamespace:
    return types.SimpleNamespace(dotted_path="c", max_repetition_level=int(repeated))


def _exact_ok(chunks, repeated, rows, file_size) -> bool:
    try:
        for chunk, rep in zip(chunks, repeated):
            if chunk.meta_data is not None:
                wrappers._check_chunk_counts(chunk.meta_data, _leaf(rep), rows, "here",
                                             None if chunk.file_path else file_size)
    except ParquetFormatError:
        return False
    return True


@pytest.mark.parametrize("seed", range(4))
def test_lean_check_agrees_with_the_chunk_rules(seed):
    rnd = random.Random(seed)
    fast_taken = plain_taken = 0
    for _ in range(3000):
        n = rnd.choice((1, 2, 3))
        # mostly plausible row groups, so that the lean path is taken often
        chunks = [_chunk(rnd) for _ in range(n)]
        if rnd.random() < 0.5:
            for c in chunks:
                if c.meta_data is not None:
                    c.file_path = None
                    c.meta_data.num_values, c.meta_data.total_compressed_size = 10, 10
                    c.meta_data.total_uncompressed_size = 40
                    c.meta_data.data_page_offset = rnd.choice((4, 500, 990))
        repeated = [rnd.random() < 0.3 for _ in range(n)]
        rows = rnd.choice((0, 10))
        file_size = rnd.choice((None, _FILE))
        exact = _exact_ok(chunks, repeated, rows, file_size)
        try:
            lean = wrappers._counts_plausible(chunks, repeated, rows, file_size)
        except TypeError:
            lean = False
        if lean:
            fast_taken += 1
            assert exact, (chunks, repeated, rows, file_size)
        schema = types.SimpleNamespace(repeated_leaves=repeated, columns=[_leaf(r) for r in repeated],
                                       leaf_types=[2] * n)
        raw = types.SimpleNamespace(num_rows=rows, columns=chunks)
        try:
            plain = wrappers._check_counts(raw, schema, 0, file_size)
            whole = True
        except ParquetFormatError:
            whole = False
        assert whole == exact, (chunks, repeated, rows, file_size)
        # "plain" (the chunk wrappers made without their own checks) only when every chunk
        # is plaintext, has its metadata and the leaf's type
        every = all(c.meta_data is not None and c.crypto_metadata is None and c.meta_data.type == 2
                    for c in chunks)
        if whole and plain:
            plain_taken += 1
            assert every, chunks
        elif whole and every and lean:
            raise AssertionError(("a plain row group not seen as plain", chunks))
    assert fast_taken > 300     # the lean path was exercised
    assert plain_taken > 100


def test_pyarrow_row_groups_take_the_lean_path(tmp_path):
    t = pa.table({"a": pa.array(range(50), pa.int64()), "s": [f"v{i % 3}" for i in range(50)],
                  "l": pa.array([[1, 2]] * 50, pa.list_(pa.int32()))})
    path = tmp_path / "f.parquet"
    pq.write_table(t, path, row_group_size=10)
    md = pc.read_metadata(path)
    for i in range(md.num_row_groups):
        raw = md.row_group(i).raw
        assert wrappers._counts_plausible(raw.columns, md.schema.repeated_leaves, raw.num_rows, md.file_size)


def test_statistics_of_an_object_without_the_newer_fields():
    """A statistics struct from an older definition (no nan_count, no exactness flags) decodes
    with those fields unknown."""
    t = pa.table({"a": pa.array([3, 1, 2], pa.int64())})
    import io
    buf = io.BytesIO()
    pq.write_table(t, buf)
    md = pc.read_metadata(io.BytesIO(buf.getvalue()))
    chunk = md.row_group(0).column(0)
    dec = StatisticsDecoder(chunk.descriptor, md.column_order(0))
    raw = chunk.meta.statistics
    old = types.SimpleNamespace(min=raw.min, max=raw.max, min_value=raw.min_value, max_value=raw.max_value,
                                null_count=raw.null_count, distinct_count=raw.distinct_count)
    got = dec.decode(old)
    assert type(got) is Statistics
    assert (got.min, got.max, got.null_count) == (1, 3, 0)
    assert (got.nan_count, got.is_min_value_exact, got.is_max_value_exact) == (None, None, None)
    assert dec.decode(raw) == Statistics(1, 3, 0, raw.distinct_count, raw.min_value, raw.max_value,
                                         raw.is_min_value_exact, raw.is_max_value_exact, None, got.column_order)
