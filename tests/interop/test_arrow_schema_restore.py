"""``read_table(...).to_arrow()`` gives back the Arrow types pyarrow restores from a file's
``ARROW:schema`` (time zone names, durations, dictionaries, large types), with equal values;
pyarrow is the oracle for which types come back."""

from __future__ import annotations

import datetime as dt
import decimal as dec

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _table():
    n = [0, 1, None]
    return pa.table({
        "ts_berlin": pa.array([dt.datetime(2024, 1, 1, 12), None, dt.datetime(1999, 12, 31)],
                              pa.timestamp("us", tz="Europe/Berlin")),
        "ts_ms_ny": pa.array([1, 2, None], pa.timestamp("ms", tz="America/New_York")),
        "ts_naive": pa.array([1, 2, None], pa.timestamp("us")),
        "dur_ms": pa.array(n, pa.duration("ms")),
        "dur_us": pa.array(n, pa.duration("us")),
        "dict_s": pa.array(["a", "b", None], pa.dictionary(pa.int16(), pa.string())),
        "dict_i": pa.array([5, None, 5], pa.dictionary(pa.int32(), pa.int64())),
        "large_s": pa.array(["x", None, "z"], pa.large_string()),
        "large_b": pa.array([b"x", None, b"\x00"], pa.large_binary()),
        "large_l": pa.array([[1, 2], None, []], pa.large_list(pa.int64())),
        "d64": pa.array([dt.date(2020, 1, 2), None, dt.date(1970, 1, 1)], pa.date64()),
        "plain": pa.array([1.5, None, 2.5]),
    })


@pytest.mark.parametrize("version", ["2.6", "1.0"])
def test_arrow_types_come_back_as_pyarrow_restores_them(tmp_path, version):
    path = tmp_path / "t.parquet"
    pq.write_table(_table(), path, version=version)
    theirs = pq.read_table(path)
    ours = pc.read_table(path).to_arrow()
    for a, b in zip(theirs.schema, ours.schema):
        assert a.equals(b), (a, b)
    assert ours.equals(theirs)


def test_pandas_metadata_comes_along(tmp_path):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1, 2, 3], "t": pd.to_datetime(["2024-01-01"] * 3).tz_localize("Asia/Tokyo")},
                      index=pd.Index([10, 20, 30], name="idx"))
    path = tmp_path / "p.parquet"
    df.to_parquet(path, engine="pyarrow")
    ours = pc.read_table(path).to_pandas()
    pd.testing.assert_frame_equal(ours, pq.read_table(path).to_pandas())
    assert str(ours["t"].dt.tz) == "Asia/Tokyo" and ours.index.name == "idx"


def test_without_arrow_schema_the_parquet_types_stand(tmp_path):
    path = tmp_path / "n.parquet"
    pq.write_table(_table(), path, store_schema=False)
    ours = pc.read_table(path).to_arrow()
    assert ours.schema.field("ts_berlin").type == pa.timestamp("us", tz="UTC")
    assert ours.schema.field("dur_ms").type == pa.int64()
    assert ours.equals(pq.read_table(path))


def test_a_garbled_arrow_schema_is_ignored(tmp_path):
    path = tmp_path / "g.parquet"
    pc.write_table({"a": [1, 2]}, path, key_value_metadata={"ARROW:schema": "not base64 of a schema!"})
    assert pc.read_table(path).to_arrow().column("a").to_pylist() == [1, 2]


def _bool8_map() -> "pa.Array":
    plain = pa.array([[("a", 1), ("b", None)], None, []], pa.map_(pa.string(), pa.int8()))
    items = pa.ExtensionArray.from_storage(pa.bool8(), plain.items)
    return pa.MapArray.from_arrays(plain.offsets, plain.keys, items, mask=plain.is_null())


def _maps():
    paris = pa.timestamp("ns", tz="Europe/Paris")
    when = dt.datetime(2024, 3, 31, 1, 30, tzinfo=dt.timezone.utc)
    return pa.table({
        "tz_values": pa.array([[("a", when), ("b", None)], None, []], pa.map_(pa.string(), paris)),
        "tz_keys": pa.array([[(when, 1)], [], None], pa.map_(pa.timestamp("us", tz="Asia/Tokyo"), pa.int32())),
        "durations": pa.array([[("a", dt.timedelta(seconds=3))], None, [("b", None)]],
                              pa.map_(pa.string(), pa.duration("ms"))),
        "large": pa.array([[("k", "v")], None, []], pa.map_(pa.large_string(), pa.large_string())),
        "dict_values": pa.MapArray.from_arrays(
            pa.array([0, 1, 1, 3], pa.int32()), pa.array(["a", "b", "c"]),
            pa.array(["x", None, "x"]).dictionary_encode()),
        "extension": _bool8_map(),
        "nested": pa.array([[("a", [dt.timedelta(1), None])], None, []],
                           pa.map_(pa.string(), pa.list_(pa.duration("s")))),
        "in_list": pa.array([[[("a", dt.timedelta(microseconds=5))]], None, [None, []]],
                            pa.list_(pa.map_(pa.string(), pa.duration("us")))),
        "in_struct": pa.array([{"m": [("a", when)]}, None, {"m": None}],
                              pa.struct([("m", pa.map_(pa.string(), paris))])),
        "sorted": pa.array([[("a", 1)], None, []], pa.map_(pa.string(), pa.int32(), keys_sorted=True)),
    })


@pytest.mark.parametrize("column", list(_maps().column_names))
def test_types_inside_maps_come_back_as_pyarrow_restores_them(tmp_path, column):
    path = tmp_path / "m.parquet"
    pq.write_table(_maps().select([column]), path)
    theirs = pq.read_table(path)
    ours = pc.read_table(path).to_arrow()
    # (with check_metadata, pyarrow 26 also compares the entries field's name, which its
    # reader takes from the map column and parquet_core leaves as Arrow's "entries")
    assert ours.schema.field(column).equals(theirs.schema.field(column)), (ours.schema, theirs.schema)
    assert ours.schema.field(column).metadata == theirs.schema.field(column).metadata
    assert ours.column(column).type.equals(theirs.column(column).type)
    assert ours.to_pylist() == theirs.to_pylist()
    ours.validate(full=True)


def test_maps_written_by_us_restore_like_pyarrow_writes(tmp_path):
    """Written from the pyarrow table by us, read by pyarrow: the same types and values."""
    path = tmp_path / "ours.parquet"
    pc.write_table(_maps(), path)
    back = pq.read_table(path)
    expected = _maps()
    for f in expected.schema:
        assert back.schema.field(f.name).type.equals(f.type), f.name
    assert back.to_pylist() == expected.to_pylist()
    again = pc.read_table(path).to_arrow()
    assert again.to_pylist() == expected.to_pylist()
    assert [f.type for f in again.schema] == [f.type for f in back.schema]


@pytest.mark.parametrize("start, length", [(0, 4), (1, 2), (2, 2), (3, 1)])
def test_map_restoration_keeps_slices_and_nulls(start, length):
    from parquet_core.interop.arrow_metadata import restore_field

    plain = pa.array([[("a", 1)], None, [("b", 2), ("c", None)], []], pa.map_(pa.string(), pa.int64()))
    want = pa.map_(pa.string(), pa.duration("ms"))
    got, _ = restore_field(plain.slice(start, length), pa.field("m", want))
    got.validate(full=True)
    assert got.type.equals(want)
    assert got.to_pylist() == plain.slice(start, length).cast(want).to_pylist()


# ------------------------------------------------- schemas alone, view and fixed-size list types
# read_schema(...).to_arrow() and ParquetFile.schema_arrow.to_arrow() give what pq.read_schema
# gives (the file's table schema, without reading data); read_table(...).to_arrow() the
# string_view / binary_view / fixed_size_list columns pyarrow restores too.

def _oslo(values):
    return pa.array(values, pa.timestamp("ms", tz="Europe/Oslo"))


def _restorable():
    when = [dt.datetime(2024, 3, 31, 0, 30, tzinfo=dt.timezone.utc), None,
            dt.datetime(1969, 12, 31, 23, 59, tzinfo=dt.timezone.utc)]
    return pa.table({
        "dict": pa.array(["a", None, "a"]).dictionary_encode(),
        "dict_i8_ordered": pa.array(["b", "a", None], pa.dictionary(pa.int8(), pa.string(), ordered=True)),
        "dict_binary": pa.array([b"\x00", b"\x00", None]).dictionary_encode(),
        "oslo": _oslo(when),
        "tokyo_ns": pa.array(when, pa.timestamp("ns", tz="Asia/Tokyo")),
        "dur_s": pa.array([1, None, -7], pa.duration("s")),
        "dur_ns": pa.array([2**40, None, -1], pa.duration("ns")),
        "large_string": pa.array(["x", None, ""], pa.large_string()),
        "large_binary": pa.array([b"x", None, b"\xff"], pa.large_binary()),
        "large_list": pa.array([[1], None, []], pa.large_list(pa.int16())),
        "string_view": pa.array(["short", None, "a string longer than twelve bytes"], pa.string_view()),
        "binary_view": pa.array([b"\x00", None, b"b" * 40], pa.binary_view()),
        "fixed_size_list": pa.array([[1, None], None, [3, 4]], pa.list_(pa.int32(), 2)),
        # null lists of strings: their slots must be nulls, not unset memory
        "fsl_null_strings": pa.array([None, ["a", "b"], None], pa.list_(pa.large_string(), 2)),
        "fsl_of_views": pa.array([["a", "b", None], None, ["c", "d", "e"]], pa.list_(pa.string_view(), 3)),
        "bool8": pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, None, 0], pa.int8())),
        # seconds are stored (and read back by pyarrow) as ms: the zone name still comes back
        "oslo_s": pa.array([1, None, -1], pa.timestamp("s", tz="Europe/Oslo")),
        "decimal32": pa.array([dec.Decimal("1.25"), None, dec.Decimal("-3.00")], pa.decimal32(5, 2)),
        "decimal64": pa.array([dec.Decimal("1.25"), None, dec.Decimal("-3.00")], pa.decimal64(12, 2)),
        "list_view": pa.array([[1, None], None, []], pa.list_view(pa.int32())),
        "large_list_view": pa.array([["a"], None, []], pa.large_list_view(pa.string())),
        # pyarrow keeps the value type read (string), with the recorded index type
        "dict_large_string": pa.array(["a", None, "a"], pa.dictionary(pa.int16(), pa.large_string())),
        "struct": pa.array([{"v": "x", "f": [1.5], "d": 3}, None, {"v": None, "f": None, "d": None}],
                           pa.struct([("v", pa.string_view()), ("f", pa.list_(pa.float64(), 1)),
                                      ("d", pa.duration("ms"))])),
        "list_of_oslo": pa.array([[when[0], None], None, []], pa.list_(pa.timestamp("ms", tz="Europe/Oslo"))),
        "large_list_of_fsl": pa.array([[[1, 2]], None, [None]], pa.large_list(pa.list_(pa.int8(), 2))),
    })


def _same_values(ours, theirs) -> bool:
    # repr keeps NaN equal to NaN (float columns of the corpus)
    return ours.equals(theirs) or repr(ours.to_pylist()) == repr(theirs.to_pylist())


@pytest.mark.parametrize("column", list(_restorable().column_names))
def test_schema_and_data_come_back_as_pyarrow_reads_them(tmp_path, column):
    path = tmp_path / "r.parquet"
    pq.write_table(_restorable().select([column]), path)
    expected = pq.read_schema(path)
    assert pc.read_schema(path).to_arrow().equals(expected, check_metadata=True)
    with pc.ParquetFile(path) as pf:
        assert pf.schema_arrow.to_arrow().equals(expected, check_metadata=True)
    theirs = pq.read_table(path)
    ours = pc.read_table(path).to_arrow()
    ours.validate(full=True)
    assert ours.schema.equals(theirs.schema, check_metadata=True), (ours.schema, theirs.schema)
    assert ours.equals(theirs)


def test_values_of_restored_columns_are_pyarrow_values(tmp_path):
    path = tmp_path / "v.parquet"
    pq.write_table(_restorable(), path)
    ours = pc.read_table(path).to_arrow()
    # durations: the stored counts in their unit, as pyarrow reads them
    assert ours.column("dur_s").cast(pa.int64()).to_pylist() == [1, None, -7]
    # a zoned timestamp keeps its instants (Arrow stores UTC) and gets its zone name back
    assert ours.column("oslo").type == pa.timestamp("ms", tz="Europe/Oslo")
    assert ours.column("oslo").cast(pa.int64()).to_pylist() == [1711845000000, None, -60000]
    assert ours.column("dict").combine_chunks().equals(pq.read_table(path).column("dict").combine_chunks())
    assert ours.column("string_view").to_pylist() == ["short", None, "a string longer than twelve bytes"]
    assert ours.column("fixed_size_list").to_pylist() == [[1, None], None, [3, 4]]
    assert ours.select(["string_view", "binary_view", "fixed_size_list", "fsl_of_views", "struct"]).equals(
        pq.read_table(path).select(["string_view", "binary_view", "fixed_size_list", "fsl_of_views",
                                    "struct"]))


def test_pyarrow_schema_metadata_wins_over_other_footer_keys(tmp_path):
    """With ARROW:schema, pyarrow's schema metadata is the recorded schema's, not every footer key."""
    path = tmp_path / "kv.parquet"
    table = pa.table({"x": [1]}).replace_schema_metadata({"a": "1"})
    with pq.ParquetWriter(path, table.schema) as w:
        w.write_table(table)
        w.add_key_value_metadata({"b": "2"})
    assert pc.read_schema(path).to_arrow().metadata == pq.read_schema(path).metadata == {b"a": b"1"}
    assert pc.read_table(path).to_arrow().schema.metadata == pq.read_table(path).schema.metadata


def _corpus_with_arrow_schema():
    import os
    from pathlib import Path

    root = os.environ.get("PARQUET_TEST_DATA")
    if not root:
        return []
    out = []
    for p in sorted(Path(root).rglob("*.parquet")):
        try:
            kv = pq.read_metadata(p).metadata or {}
        except Exception:  # files the corpus keeps unreadable on purpose
            continue
        if b"ARROW:schema" in kv:
            out.append(p)
    return out


def test_corpus_files_with_arrow_schema_read_as_pyarrow_reads_them():
    files = _corpus_with_arrow_schema()
    if not files:
        pytest.skip("PARQUET_TEST_DATA not set")
    checked = 0
    for path in files:
        expected = pq.read_schema(path)
        got = pc.read_schema(path).to_arrow()
        if path.name == "large_string_map.brotli.parquet":
            # pyarrow names the map's entries field after the Parquet group ("arr") and cannot
            # read the data; the types still agree
            assert got.equals(expected), (path, got, expected)
            continue
        assert got.equals(expected, check_metadata=True), (path, got, expected)
        theirs = pq.read_table(path)
        ours = pc.read_table(path).to_arrow()
        assert ours.schema.equals(theirs.schema, check_metadata=True), path
        assert _same_values(ours, theirs), path
        checked += 1
    assert checked >= 5


# -------------------------------------------------------------------- random schemas of these types
_LEAVES = [
    ("dict", pa.dictionary(pa.int32(), pa.string())),
    ("dict8", pa.dictionary(pa.int8(), pa.string(), ordered=True)),
    ("oslo", pa.timestamp("ms", tz="Europe/Oslo")),
    ("utc_us", pa.timestamp("us", tz="UTC")),
    ("la_ns", pa.timestamp("ns", tz="America/Los_Angeles")),
    ("dur_s", pa.duration("s")), ("dur_ms", pa.duration("ms")), ("dur_us", pa.duration("us")),
    ("dur_ns", pa.duration("ns")),
    ("large_string", pa.large_string()), ("large_binary", pa.large_binary()),
    ("string_view", pa.string_view()), ("binary_view", pa.binary_view()),
    ("string", pa.string()), ("int32", pa.int32()),
    ("bool8", pa.bool8()),
]


def _leaf_value(draw, st, typ):
    if isinstance(typ, pa.BaseExtensionType):
        return draw(st.sampled_from([0, 1]))
    if pa.types.is_dictionary(typ) or pa.types.is_string(typ) or pa.types.is_large_string(typ) \
            or pa.types.is_string_view(typ):
        return draw(st.text(max_size=14))
    if pa.types.is_large_binary(typ) or pa.types.is_binary_view(typ):
        return draw(st.binary(max_size=14))
    bound = 2**31 - 1 if pa.types.is_int32(typ) else 2**40
    return draw(st.integers(-bound, bound))


def test_random_schemas_read_as_pyarrow_reads_them(tmp_path):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @st.composite
    def tables(draw):
        columns = {}
        n = draw(st.integers(0, 4))
        for i in range(draw(st.integers(1, 4))):
            name, leaf = draw(st.sampled_from(_LEAVES))
            shape = draw(st.sampled_from(["flat", "list", "large_list", "fixed_size_list", "struct"]))
            if pa.types.is_dictionary(leaf) and shape != "flat":
                shape = "flat"   # dictionaries are kept at the top level only
            def value():
                return None if draw(st.booleans()) and draw(st.booleans()) else _leaf_value(draw, st, leaf)
            storage = leaf.storage_type if isinstance(leaf, pa.BaseExtensionType) else leaf
            if shape == "flat":
                typ, values = storage, [value() for _ in range(n)]
            elif shape == "fixed_size_list":
                typ = pa.list_(storage, 2)
                values = [None if draw(st.booleans()) else [value(), value()] for _ in range(n)]
            elif shape == "struct":
                typ = pa.struct([("v", storage)])
                values = [None if draw(st.booleans()) else {"v": value()} for _ in range(n)]
            else:
                typ = (pa.list_ if shape == "list" else pa.large_list)(storage)
                values = [None if draw(st.booleans()) else [value() for _ in range(draw(st.integers(0, 2)))]
                          for _ in range(n)]
            arr = pa.array(values, typ)
            if isinstance(leaf, pa.BaseExtensionType):   # the extension type around the storage
                arr = _wrap(arr, leaf)
            columns[f"c{i}_{name}_{shape}"] = arr
        return pa.table(columns)

    @hypothesis.settings(max_examples=40, deadline=None,
                         suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
    @hypothesis.given(tables())
    def check(table):
        path = tmp_path / "h.parquet"
        pq.write_table(table, path)
        assert pc.read_schema(path).to_arrow().equals(pq.read_schema(path), check_metadata=True)
        theirs = pq.read_table(path)
        ours = pc.read_table(path).to_arrow()
        ours.validate(full=True)
        assert ours.schema.equals(theirs.schema, check_metadata=True), (ours.schema, theirs.schema)
        assert ours.equals(theirs)

    check()


def _wrap(arr, ext):
    """*arr* with its innermost leaf values wrapped in the extension type *ext*."""
    t = arr.type
    if pa.types.is_struct(t):
        return pa.StructArray.from_arrays([_wrap(arr.field(0), ext)], names=[t.field(0).name],
                                          mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_fixed_size_list(t):
        return pa.FixedSizeListArray.from_arrays(_wrap(arr.values, ext), t.list_size,
                                                 mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        cls = pa.ListArray if pa.types.is_list(t) else pa.LargeListArray
        return cls.from_arrays(arr.offsets, _wrap(arr.values, ext), mask=arr.is_null() if arr.null_count else None)
    return pa.ExtensionArray.from_storage(ext, arr)


@pytest.mark.parametrize("start, length", [(0, 4), (1, 2), (2, 2), (3, 1)])
def test_fixed_size_restoration_keeps_slices_and_nulls(start, length):
    from parquet_core.interop.arrow_metadata import restore_field

    plain = pa.array([["a", None], None, ["b", "c"], ["d", "e"]], pa.list_(pa.string()))
    want = pa.list_(pa.string_view(), 2)
    got, _ = restore_field(plain.slice(start, length), pa.field("f", want))
    got.validate(full=True)
    assert got.type.equals(want)
    assert got.to_pylist() == plain.slice(start, length).to_pylist()

