"""Issue 31: pyarrow's ``binary_type`` / ``list_type`` read options, which only choose the
Arrow types ``to_arrow()`` gives.  Oracle: ``pq.read_table(f, binary_type=..., list_type=...)``
on files with and without ``ARROW:schema`` (pyarrow ignores both options when it is there)."""

from __future__ import annotations

import io

import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _file(store_schema):
    t = pa.table({"b": pa.array([b"x", None, b""]), "s": ["a", None, "é"],
                  "l": pa.array([[1], None, []]), "ll": pa.array([[["q"]], None, [[]]]),
                  "m": pa.array([[("k", b"v")], None, []], pa.map_(pa.string(), pa.binary())),
                  "st": pa.array([{"x": [b"q"]}, None, {"x": None}]), "i": [1, 2, 3],
                  # with ARROW:schema and a large or view binary_type pyarrow reads these
                  # dictionaries as that type, not as dictionaries
                  "d": pa.array(["a", None, "a"]).dictionary_encode(),
                  "db": pa.array([b"a", b"b", None]).dictionary_encode()})
    buf = io.BytesIO()
    pq.write_table(t, buf, store_schema=store_schema)
    return buf.getvalue()


_OPTIONS = [{"binary_type": pa.large_binary()}, {"binary_type": pa.binary_view()},
            {"binary_type": pa.binary()}, {"list_type": pa.LargeListType}, {"list_type": pa.ListType},
            {"binary_type": pa.large_binary(), "list_type": pa.LargeListType}]


@pytest.mark.parametrize("store_schema", [False, True])
@pytest.mark.parametrize("kw", _OPTIONS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_to_arrow_types_are_pyarrows(kw, store_schema):
    data = _file(store_schema)
    want = pq.read_table(io.BytesIO(data), **kw)
    for got in (pc.read_table(io.BytesIO(data), **kw), pc.ParquetFile(io.BytesIO(data), **kw).read()):
        arrow = got.to_arrow()
        assert arrow.schema.equals(want.schema) and arrow.equals(want)


def test_a_type_that_is_not_binary_is_refused():
    with pytest.raises(TypeError, match="binary_type"):
        pc.read_table(io.BytesIO(_file(False)), binary_type=pa.string())
    with pytest.raises(TypeError, match="list_type"):
        pc.read_table(io.BytesIO(_file(False)), list_type=pa.FixedSizeListType)


def _int96_file(store_schema):
    t = pa.table({"t": pa.array([0, 1_500_000_000_000_000_000, None], pa.timestamp("ns")),
                  "lt": pa.array([[0], None, []], pa.list_(pa.timestamp("ns"))),
                  "z": pa.array([1, 2, None], pa.timestamp("ms", "Europe/Oslo")),
                  "s": ["a", None, "b"], "l": pa.array([[b"x"], None, []])})
    buf = io.BytesIO()
    pq.write_table(t, buf, store_schema=store_schema, use_deprecated_int96_timestamps=True)
    return buf.getvalue()


_ALL = [dict(kw) for kw in (
    {k: v for k, v in (("binary_type", b), ("list_type", lt), ("coerce_int96_timestamp_unit", u))
     if v is not None}
    for b in (None, pa.binary(), pa.large_binary(), pa.binary_view())
    for lt in (None, pa.ListType, pa.LargeListType)
    for u in (None, "s", "ms", "us", "ns"))]


@pytest.mark.parametrize("store_schema", [False, True])
@pytest.mark.parametrize("maker", [_file, _int96_file], ids=["nested", "int96"])
def test_schema_arrow_is_pyarrows_for_every_option_combination(maker, store_schema):
    """``ParquetFile(..., binary_type=, list_type=, coerce_int96_timestamp_unit=).schema_arrow``:
    its ``to_arrow()`` is pyarrow's ``schema_arrow`` (types and metadata), and the schema of
    what ``read()`` gives, for all 60 combinations."""
    data = maker(store_schema)
    for kw in _ALL:
        want = pq.ParquetFile(io.BytesIO(data), **kw).schema_arrow
        pf = pc.ParquetFile(io.BytesIO(data), **kw)
        got = pf.schema_arrow.to_arrow()
        # types (check_metadata=False: pyarrow 26 names a map's entries field after the map,
        # which only a metadata-checking comparison sees), then the schema's key/values
        assert got.equals(want), (kw, got, want)
        assert got.metadata == want.metadata, kw
        assert pf.read().to_arrow().schema.equals(want), kw
