"""Property tests: random flat schemas, data and writer options round-trip exactly.

Hypothesis draws a schema (1-5 columns of any writable type, each REQUIRED or
OPTIONAL with a random share of nulls), a row count (0-400) and the options
(codec, per-column encoding valid for the column's physical type or
dictionary, page version, page size, page row limit, row group size,
dictionary size limit, statistics, checksums).  Data come from the column
cases of ``tests/interop/writer_cases.py`` (edge values first: integer
extremes, NaN, infinities, -0.0, empty and non-ASCII strings, widest
decimals).  Each file is read back by parquet_core *and* by pyarrow and
both must return exactly the input.

Seeds are fixed (``derandomize=True``): CI runs 60 examples; the ``slow``
variant runs 400.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parquet_core as pc
from parquet_core.table.arrays import Array, Table
from tests.interop.writer_cases import (
    BY_KEY, CASES, CODECS, assert_values, canon_arrow, canon_ours,
    check_arrow_type, expected_values, make_columns,
)

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

#: INT96 *timestamps* are a file-wide switch, so that case is exercised by the matrix instead.
POOL = [c for c in CASES if not c.options]


@st.composite
def columns(draw):
    k = draw(st.integers(1, 5))
    out = []
    for i in range(k):
        case = BY_KEY[draw(st.sampled_from([c.key for c in POOL]))]
        nulls = draw(st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0]))
        nullable = nulls > 0 or draw(st.booleans())
        encodings = (("dict",) if case.dictionary else ()) + case.encodings
        enc = draw(st.sampled_from(encodings))
        out.append((f"c{i}_{case.key}", nulls, nullable, enc))
    return out


@st.composite
def options(draw):
    return dict(
        compression=draw(st.sampled_from(CODECS)),
        data_page_version=draw(st.sampled_from(["1.0", "2.0"])),
        data_page_size=draw(st.sampled_from([32, 256, 4096, 1 << 20])),
        data_page_row_count_limit=draw(st.sampled_from([1, 7, 100, 20_000])),
        row_group_size=draw(st.sampled_from([1, 13, 150, 1 << 20])),
        dictionary_pagesize_limit=draw(st.sampled_from([64, 1024, 1 << 20])),
        write_statistics=draw(st.booleans()),
        write_page_checksum=draw(st.booleans()),
        write_page_index=draw(st.booleans()),
    )


def _roundtrip(cols, n, seed, opts, sink_kind):
    names = [c[0] for c in cols]
    cases = [BY_KEY[name.split("_", 1)[1]] for name in names]
    table, expected = make_columns(cases, n, nulls=False, seed=seed, names=names)
    # per-column null share and nullability (make_columns draws one share for all)
    rng = np.random.default_rng(seed + 1)
    fields, arrays = [], []
    for (name, nulls, nullable, _), case, arr in zip(cols, cases, table.columns):
        validity = None
        if case.type.name == "null":
            validity = np.zeros(n, dtype=bool)
            nullable = True
        elif nulls > 0:
            validity = rng.random(n) >= nulls
        fields.append(pc.field(name, case.type, nullable=nullable))
        arrays.append(Array(case.type, arr.values, validity))
        expected[name] = expected_values(case, arr.values, validity)
    table = Table(pc.schema(fields), arrays, n)

    use_dict = [name for name, _, _, enc in cols if enc == "dict"]
    encodings = {name: enc for name, _, _, enc in cols if enc != "dict"}
    kw = dict(opts, use_dictionary=use_dict)
    if encodings:
        kw["column_encoding"] = encodings

    buf = io.BytesIO()
    if sink_kind == "batches" and n > 2:
        cut = n // 3
        with pc.ParquetWriter(buf, table.schema, **kw) as w:
            w.write_table(table.slice(0, cut))
            w.write_table(table.slice(cut, n))
    else:
        pc.write_table(table, buf, **kw)
    data = buf.getvalue()

    ours = pc.read_table(data)
    assert ours.column_names == names
    for name, case in zip(names, cases):
        arr = ours.column(name)
        assert arr.type == case.type, f"{name}: read as {arr.type}"
        assert_values(canon_ours(arr), expected[name], f"parquet_core {name} ({kw})")

    theirs = pq.read_table(pa.BufferReader(data), page_checksum_verification=True)
    assert theirs.num_rows == n
    for name, case in zip(names, cases):
        col = theirs.column(name)
        check_arrow_type(case, col.type, f"{name}: ")
        assert_values(canon_arrow(col), expected[name], f"pyarrow {name} ({kw})")


_COMMON = dict(deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=60, **_COMMON)
@given(cols=columns(), n=st.integers(0, 400), seed=st.integers(0, 2**32 - 1), opts=options(),
       sink_kind=st.sampled_from(["table", "batches"]))
def test_random_tables_roundtrip(cols, n, seed, opts, sink_kind):
    _roundtrip(cols, n, seed, opts, sink_kind)


@pytest.mark.slow
# 150 examples of up to 2,000 rows (400 took ~170 s of a CI worker, the suite's second-slowest test)
@settings(max_examples=150, **_COMMON)
@given(cols=columns(), n=st.integers(0, 2000), seed=st.integers(0, 2**32 - 1), opts=options(),
       sink_kind=st.sampled_from(["table", "batches"]))
def test_random_tables_roundtrip_many(cols, n, seed, opts, sink_kind):
    _roundtrip(cols, n, seed, opts, sink_kind)
