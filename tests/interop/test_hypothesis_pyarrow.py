"""Property test: random flat tables written by pyarrow with random options read back equal."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parquet_core as pc
from tests.conformance.oracle import assert_column_matches

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# (arrow type, value generator from a numpy Generator, encodings pyarrow allows without dictionary)
_INT_ENC = ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"]
TYPES = {
    "int8": (pa.int8(), lambda g, n: g.integers(-128, 128, n), ["PLAIN", "DELTA_BINARY_PACKED"]),
    "int32": (pa.int32(), lambda g, n: g.integers(-2**31, 2**31, n), _INT_ENC),
    "int64": (pa.int64(), lambda g, n: g.integers(-2**63, 2**63 - 1, n, dtype=np.int64), _INT_ENC),
    "uint32": (pa.uint32(), lambda g, n: g.integers(0, 2**32, n), ["PLAIN", "DELTA_BINARY_PACKED"]),
    "uint64": (pa.uint64(), lambda g, n: g.integers(0, 2**64 - 1, n, dtype=np.uint64), ["PLAIN", "DELTA_BINARY_PACKED"]),
    "float32": (pa.float32(), lambda g, n: g.normal(size=n).astype(np.float32), ["PLAIN", "BYTE_STREAM_SPLIT"]),
    "float64": (pa.float64(), lambda g, n: np.where(g.random(n) < 0.05, np.nan, g.normal(size=n)), ["PLAIN", "BYTE_STREAM_SPLIT"]),
    "bool": (pa.bool_(), lambda g, n: g.random(n) < 0.3, ["PLAIN", "RLE"]),
    "string": (pa.string(), lambda g, n: [("x" * int(k)) + str(int(v)) for k, v in zip(g.integers(0, 9, n), g.integers(0, 50, n))],
               ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]),
    "binary": (pa.binary(), lambda g, n: [bytes(g.integers(0, 256, int(k)).astype(np.uint8)) for k in g.integers(0, 6, n)],
               ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]),
    "fixed3": (pa.binary(3), lambda g, n: [bytes(g.integers(0, 4, 3).astype(np.uint8)) for _ in range(n)],
               ["PLAIN", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"]),
    "ts_us": (pa.timestamp("us", tz="UTC"), lambda g, n: g.integers(-2**50, 2**50, n), _INT_ENC),
    "date": (pa.date32(), lambda g, n: g.integers(-700_000, 2_900_000, n).astype(np.int32), ["PLAIN", "DELTA_BINARY_PACKED"]),
}

columns = st.lists(st.tuples(st.sampled_from(sorted(TYPES)), st.floats(0, 1), st.integers(0, 10**6)),
                   min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cols=columns, n=st.integers(0, 600), compression=st.sampled_from(["NONE", "SNAPPY", "ZSTD", "GZIP", "LZ4"]),
       dictionary=st.booleans(), version=st.sampled_from(["1.0", "2.0"]), page_size=st.sampled_from([64, 1024, 1 << 20]),
       enc_pick=st.integers(0, 10), row_group=st.sampled_from([7, 100, 10_000]))
def test_random_flat_tables(cols, n, compression, dictionary, version, page_size, enc_pick, row_group) -> None:
    arrays, names, encodings = [], [], {}
    for i, (tname, null_frac, seed) in enumerate(cols):
        typ, gen, encs = TYPES[tname]
        g = np.random.default_rng(seed)
        values = gen(g, n)
        mask = g.random(n) < null_frac
        arr = pa.array(values, type=typ, mask=mask if len(values) else None) if n else pa.array([], type=typ)
        name = f"c{i}_{tname}"
        arrays.append(arr)
        names.append(name)
        encodings[name] = encs[enc_pick % len(encs)]
    table = pa.table(dict(zip(names, arrays)))
    buf = io.BytesIO()
    kw = {} if dictionary else {"column_encoding": encodings}
    pq.write_table(table, buf, compression=compression, use_dictionary=dictionary,
                   data_page_version=version, data_page_size=page_size, row_group_size=row_group, **kw)
    data = buf.getvalue()
    ours = pc.read_table(data)
    theirs = pq.read_table(io.BytesIO(data))
    assert ours.num_rows == theirs.num_rows == n
    for name in names:
        assert_column_matches(ours.column(name), theirs.column(name), name)
