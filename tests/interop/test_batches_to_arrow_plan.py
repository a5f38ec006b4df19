"""The batches of one read converted to Arrow reuse what the first batch worked out (each
column's Arrow type, the Arrow schema: ``interop.arrow._Plan``); every batch must still be
the one a fresh conversion gives, and the one pyarrow's ``iter_batches`` gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.interop import arrow as conv

ROWS = 1000


def _source(restored: bool) -> pa.Table:
    rng = np.random.default_rng(7)
    ints = pa.array(rng.integers(0, 100, ROWS), mask=rng.random(ROWS) < 0.2)
    words = np.array(["alpha", "beta", "", "delta"])[rng.integers(0, 4, ROWS)]
    lists = [None if i % 7 == 0 else list(range(i % 4)) for i in range(ROWS)]
    extra = {
        # types only ARROW:schema gives back (restored each batch: no plan for such a file)
        "d": pa.array(words).dictionary_encode(),
        "ts": pa.array(rng.integers(0, 10**12, ROWS), pa.timestamp("us", tz="Europe/Paris")),
    } if restored else {}
    return pa.table({
        "i64": pa.array(rng.integers(-9, 9, ROWS)),
        "nullable_i": ints,
        "f32": pa.array(rng.random(ROWS).astype(np.float32)),
        "s": pa.array(words, mask=rng.random(ROWS) < 0.1),
        "l": pa.array(lists, pa.list_(pa.int32())),
        "st": pa.array([{"a": i, "b": str(i)} if i % 5 else None for i in range(ROWS)]),
        **extra,
    })


def _fresh(batch) -> pa.Table:
    conv._PLANS.clear()
    return batch.to_arrow()


@pytest.mark.parametrize("restored", [False, True])
@pytest.mark.parametrize("read_dictionary", [None, ["s"]])
def test_each_batch_equals_a_fresh_conversion_and_pyarrows(tmp_path, read_dictionary, restored):
    path = tmp_path / "t.parquet"
    pq.write_table(_source(restored), path, data_page_size=512)
    conv._PLANS.clear()
    ours = list(pc.ParquetFile(path, read_dictionary=read_dictionary).iter_batches(batch_size=128))
    theirs = list(pq.ParquetFile(path, read_dictionary=read_dictionary).iter_batches(batch_size=128))
    assert len(ours) == len(theirs) > 2
    planned = [b.to_arrow() for b in ours]        # the first batch makes the plan, the others use it
    assert bool(conv._PLANS) is not restored, "the plan was not made: the test checks nothing"
    for i, (got, batch, want) in enumerate(zip(planned, ours, theirs)):
        assert got.equals(_fresh(batch), check_metadata=True), i
        assert got.schema.equals(want.schema, check_metadata=True), i
        assert got.equals(pa.Table.from_batches([want])), i
        for name in got.column_names:     # each batch's own values, not the first one's
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (i, name)


def test_a_plan_follows_what_changes_between_tables_of_one_schema():
    # tables sharing a Schema object: their key/values (also changed in place) and their
    # values are each table's own, never the plan's first table's
    src = pa.table({"x": pa.array([1, None, 3]), "s": pa.array(["a", "b", None])})
    base = conv.table_from_arrow(src)
    conv._PLANS.clear()
    first = base.to_arrow()
    assert conv._PLANS
    other = pc.Table(base.schema, base.columns, metadata={b"k": b"v"})
    got = other.to_arrow()
    assert got.schema.metadata == {b"k": b"v"}
    assert got.equals(_fresh(other), check_metadata=True)
    # the key/values of one table changed in place after its conversion
    meta = {b"k": b"1"}
    t = pc.Table(base.schema, base.columns, metadata=meta)
    t.to_arrow()
    meta[b"k"] = b"2"
    assert t.to_arrow().schema.metadata == {b"k": b"2"}
    # other values under the same schema
    again = pc.Table(base.schema, conv.table_from_arrow(
        pa.table({"x": pa.array([7, 8, 9]), "s": pa.array([None, "z", "y"])})).columns)
    base.to_arrow()
    assert again.to_arrow().column("x").to_pylist() == [7, 8, 9]
    assert again.to_arrow().column("s").to_pylist() == [None, "z", "y"]
    assert first.equals(src)


def test_duplicate_names_keep_their_own_columns(tmp_path):
    src = pa.Table.from_arrays([pa.array([1, 2, 3, 4]), pa.array(["a", "b", "c", "d"])], names=["x", "x"])
    path = tmp_path / "dup.parquet"
    pq.write_table(src, path)
    conv._PLANS.clear()
    batches = [b.to_arrow() for b in pc.ParquetFile(path).iter_batches(batch_size=2)]
    theirs = list(pq.ParquetFile(path).iter_batches(batch_size=2))
    assert len(batches) == 2
    for got, want in zip(batches, theirs):
        assert got.equals(pa.Table.from_batches([want]), check_metadata=True)


def test_a_column_of_another_arrow_type_is_converted_afresh(tmp_path):
    # the same Schema object, the string column once plain and once a dictionary kept from
    # the file (not asked for: as_read is the same): each table gets its own Arrow type
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"s": pa.array(["a", "b", None, "a"]), "i": pa.array([1, 2, 3, 4])}), path)
    kept = pc.ParquetFile(path, read_dictionary=["s"]).read()
    col = kept.columns[0]
    assert isinstance(col, conv.DictionaryArray) and col.requested
    plain = pc.Table(kept.schema, [conv.DictionaryArray(col.type, col.runs, col.validity, col.values).dense(),
                                   kept.columns[1]], metadata=kept.metadata)
    other = pc.Table(kept.schema, [conv.DictionaryArray(col.type, col.runs, col.validity, col.values),
                                   kept.columns[1]], metadata=kept.metadata)
    conv._PLANS.clear()
    assert pa.types.is_string(plain.to_arrow().schema.field("s").type)
    assert conv._PLANS
    got = other.to_arrow()
    assert pa.types.is_dictionary(got.schema.field("s").type)
    assert got.equals(_fresh(other), check_metadata=True)
    assert got.column("s").to_pylist() == ["a", "b", None, "a"]


@pytest.mark.parametrize("base", [0, 5, 2**31 - 20, 2**31 + 7, 3 * 2**31])
def test_string_offsets_narrowed_from_any_base(base):
    # a batch's strings are a window of its chunk's: offsets starting at 0, past 0, near and
    # past int32's end (data faked by a zero-stride view: only the window is ever copied)
    from numpy.lib.stride_tricks import as_strided

    from parquet_core._kernels.binary import ByteArrays

    words = [b"ab", b"", b"cde", b"f", b""]
    lengths = np.array([len(w) for w in words], np.int64)
    offsets = base + np.concatenate([[0], np.cumsum(lengths)])
    if base + 6 > 10**9:
        data = as_strided(np.zeros(1, np.uint8), shape=(int(offsets[-1]),), strides=(0,))
    else:
        data = np.zeros(int(offsets[-1]), np.uint8)
    window = np.frombuffer(b"".join(words), np.uint8)
    if data.strides == (0,):     # the zero-stride fake holds zeros: compare with zeros of each length
        words = [b"\0" * len(w) for w in words]
    else:
        data[base:base + len(window)] = window
    got = conv._binary(ByteArrays(offsets, data), len(words), None, pa.binary())
    got.validate(full=True)
    assert got.to_pylist() == words


def test_a_schema_changed_in_place_is_planned_again():
    # Schema.fields is a list: a field replaced in it after a conversion gives its new name
    src = pa.table({"x": pa.array([1, 2, 3]), "y": pa.array([0.5, None, 1.5])})
    table = conv.table_from_arrow(src)
    plain = pc.Table(table.schema, table.columns)
    conv._PLANS.clear()
    assert plain.to_arrow().column_names == ["x", "y"]
    assert conv._PLANS
    old = plain.schema.fields[0]
    plain.schema.fields[0] = type(old)("renamed", old.type, old.nullable)
    got = plain.to_arrow()
    assert got.column_names == ["renamed", "y"]
    assert got.equals(_fresh(plain), check_metadata=True)
