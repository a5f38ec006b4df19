"""More of the capsule interface: random tables both ways (pyarrow as the oracle),
INT96, producers that only have ``__arrow_c_array__``, errors crossing the stream."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parquet_core as pc
from parquet_core.arrow_c.consume import ArrowStreamError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_TYPES = {
    "int16": (pa.int16(), lambda g, n: g.integers(-2**15, 2**15, n)),
    "uint32": (pa.uint32(), lambda g, n: g.integers(0, 2**32, n)),
    "float64": (pa.float64(), lambda g, n: np.where(g.random(n) < 0.05, np.nan, g.normal(size=n))),
    "bool": (pa.bool_(), lambda g, n: g.random(n) < 0.3),
    "string": (pa.string(), lambda g, n: ["x" * int(k) for k in g.integers(0, 20, n)]),
    "string_view": (pa.string_view(), lambda g, n: ["y" * int(k) for k in g.integers(0, 30, n)]),
    "large_binary": (pa.large_binary(), lambda g, n: [b"\x00" * int(k) for k in g.integers(0, 5, n)]),
    "ts_ns_utc": (pa.timestamp("ns", tz="UTC"), lambda g, n: g.integers(-2**60, 2**60, n)),
    "decimal": (pa.decimal128(25, 3), lambda g, n: [pa.scalar(int(v), pa.int64()).cast(pa.decimal128(25, 3))
                                                     .as_py() for v in g.integers(-10**9, 10**9, n)]),
    "list": (pa.list_(pa.int32()), lambda g, n: [list(range(int(k))) for k in g.integers(0, 4, n)]),
}


class Exported:
    def __init__(self, obj):
        self._obj = obj

    def __arrow_c_stream__(self, requested_schema=None):
        return self._obj.__arrow_c_stream__(requested_schema)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cols=st.lists(st.tuples(st.sampled_from(sorted(_TYPES)), st.floats(0, 1), st.integers(0, 10**6)),
                     min_size=1, max_size=4),
       n=st.integers(0, 300), chunk=st.integers(1, 120), start=st.integers(0, 50))
def test_random_tables_both_ways(cols, n, chunk, start):
    arrays = {}
    for i, (name, null_frac, seed) in enumerate(cols):
        typ, gen = _TYPES[name]
        g = np.random.default_rng(seed)
        mask = g.random(n) < null_frac
        arrays[f"c{i}"] = pa.array(gen(g, n), type=typ, mask=mask) if n else pa.array([], type=typ)
    table = pa.table(arrays).slice(min(start, n))
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=chunk))
    ours = pc.as_table(Exported(reader))
    # in: the same as pyarrow's own conversion
    assert repr(ours.to_pydict()) == repr(pc.as_table(table).to_pydict())   # NaN as text
    assert ours.schema == pc.as_table(table).schema
    # out: pyarrow reads what to_arrow gives
    assert repr(pa.table(ours).to_pydict()) == repr(ours.to_arrow().to_pydict())
    assert pa.table(ours).schema == ours.to_arrow().schema


def test_int96_exports_as_to_arrow():
    data = Path(os.environ.get("PARQUET_TEST_DATA", "/work/shared/parquet-testing/data"))
    path = data / "int96_from_spark.parquet"
    if not path.exists():
        pytest.skip("parquet-testing corpus not available")
    table = pc.read_table(path)
    assert pa.table(table).equals(table.to_arrow())


def test_a_record_batch_producer_with_only_arrow_c_array():
    batch = pa.record_batch({"a": [1, None, 3], "s": ["x", "y", None]})

    class ArrayOnly:
        def __arrow_c_array__(self, requested_schema=None):
            return batch.__arrow_c_array__()

    assert pc.as_table(ArrayOnly()).to_pydict() == batch.to_pydict()

    class Column:
        def __arrow_c_array__(self, requested_schema=None):
            return pa.array([1.5, None]).__arrow_c_array__()

    assert pc.as_table({"f": Column()}).column("f").to_pylist() == [1.5, None]
    with pytest.raises(pc.ParquetError, match="not a table"):
        pc.as_table(Column())


def test_an_error_in_the_producer_reaches_the_consumer():
    def batches():
        yield pa.record_batch({"a": [1]})
        raise ValueError("the producer broke")

    reader = pa.RecordBatchReader.from_batches(pa.schema([("a", pa.int64())]), batches())
    with pytest.raises(ArrowStreamError, match="the producer broke"):
        pc.as_table(Exported(reader))
    assert issubclass(ArrowStreamError, pc.ParquetError)


def test_our_stream_reports_failures_to_pyarrow():
    from parquet_core.arrow_c import ArrayNode, SchemaNode, export_stream

    def batches():
        yield ArrayNode(1, 0, [None], [ArrayNode(1, 0, [None, np.array([7], np.int64)])])
        raise RuntimeError("our producer broke")

    class Broken:
        def __arrow_c_stream__(self, requested_schema=None):
            return export_stream(SchemaNode("+s", "", 0, children=[SchemaNode("l", "a", 2)]), batches())

    reader = pa.RecordBatchReader.from_stream(Broken())
    assert reader.read_next_batch().column(0).to_pylist() == [7]
    with pytest.raises(OSError, match="our producer broke"):
        reader.read_next_batch()


def test_a_stream_of_non_struct_arrays_is_not_a_table():
    chunked = pa.chunked_array([[1, 2], [3]])
    with pytest.raises(pc.ParquetError, match="not a table"):
        pc.as_table(Exported(chunked))
    assert pc.as_table({"c": Exported(chunked)}).column("c").to_pylist() == [1, 2, 3]


def test_writer_refuses_a_stream_that_does_not_fit_its_schema(tmp_path):
    schema = pc.schema([pc.field("a", pc.int8())])
    with pytest.raises(pc.ParquetSchemaError, match="'a'"):
        with pc.ParquetWriter(tmp_path / "x.parquet", schema) as writer:
            writer.write(Exported(pa.table({"a": [1, 1000]})))
    assert not (tmp_path / "x.parquet").exists()


def test_decimals_stored_as_byte_arrays_export_sign_extended():
    import decimal

    from parquet_core._kernels.binary import ByteArrays
    from parquet_core.schema.types import DataType

    values = [-1, 12345, 0, -(10**20), 10**25]
    raw = [v.to_bytes((v.bit_length() + 8) // 8 or 1, "big", signed=True) for v in values]
    raw[2] = b""   # a null slot holds no bytes
    col = pc.Array(DataType("decimal", precision=30, scale=2), ByteArrays.from_pylist(raw),
                   np.array([True, True, False, True, True]))
    got = pa.array(col)
    want = [decimal.Decimal(v).scaleb(-2) for v in values]
    want[2] = None
    assert got.type == pa.decimal128(30, 2) and got.to_pylist() == want


def test_view_nulls_with_garbage_views_read_as_null():
    arr = pa.array(["a" * 20, None, "b"], pa.string_view())
    got = pc.as_table(Exported(pa.table({"v": arr})))
    assert got.column("v").to_pylist() == ["a" * 20, None, "b"]


def test_decimals_in_wider_fixed_bytes_export_when_the_extra_bytes_are_sign():
    import decimal

    from parquet_core.schema.types import DataType

    values = [-5, 300, 0]
    raw = np.array([list(v.to_bytes(20, "big", signed=True)) for v in values], dtype=np.uint8)
    dt = DataType("decimal", precision=20, scale=1, byte_width=20)
    got = pa.array(pc.Array(dt, raw))
    assert got.type == pa.decimal128(20, 1)
    assert got.to_pylist() == [decimal.Decimal(v).scaleb(-1) for v in values]
    too_big = np.array([list((10**40).to_bytes(20, "big", signed=True))], dtype=np.uint8)
    with pytest.raises(pc.ParquetSchemaError, match="row 0"):
        pa.array(pc.Array(dt, too_big))


def test_field_ids_of_dictionary_columns_stay_on_the_field(tmp_path):
    path = tmp_path / "ids.parquet"
    field = pa.field("d", pa.dictionary(pa.int32(), pa.string()), metadata={b"PARQUET:field_id": b"4"})
    pq.write_table(pa.table({"d": pa.array(["a", "b", "a"]).dictionary_encode()},
                            schema=pa.schema([field])), path)
    table = pc.read_table(path)
    got = pa.table(table).schema.field("d")
    assert got.metadata == {b"PARQUET:field_id": b"4"} and pa.types.is_dictionary(got.type)
