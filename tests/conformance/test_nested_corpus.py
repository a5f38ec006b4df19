"""Nested corpus files beyond pyarrow's whole-file comparison (test_corpus.py).

* ``incorrect_map_schema.parquet`` (a map whose key is not required; pyarrow
  refuses it) against duckdb's reading.
* ``large_string_map.brotli.parquet`` (2 GiB of map keys) against the facts
  duckdb reads from it, with 64-bit offsets and bounded memory.
* Projections of every dotted leaf path and prefix of every nested file
  against ``pyarrow.parquet.ParquetFile.read(columns=...)``.
* The Arrow layout (offsets and validity) of null, empty and null-holding
  lists against the buffers of pyarrow's own arrays.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.table.nested import ListArray, MapArray, StructArray
from tests._support.nested_corpus import NESTED_FILES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")



def test_incorrect_map_schema_matches_duckdb(corpus: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    path = corpus / "incorrect_map_schema.parquet"
    rows = duckdb.sql(f"select * from read_parquet('{path}')").fetchall()
    table = pc.read_table(path)
    assert table.column_names == ["my_map"]
    col = table.column("my_map")
    assert isinstance(col, MapArray) and col.type.fields[0].nullable  # the key is OPTIONAL in the file
    expected = []
    for (m,) in rows:
        if isinstance(m, dict) and set(m) == {"key", "value"}:  # older duckdb: {"key": [...], "value": [...]}
            m = dict(zip(m["key"], m["value"]))
        expected.append(None if m is None else list(m.items()))
    assert col.to_pylist() == expected
    # Arrow maps cannot hold nullable keys: the column becomes a list of key/value structs.
    arrow = table.to_arrow().column("my_map").to_pylist()
    assert arrow == [[{"key": k, "value": v} for k, v in row] for row in expected]


_LARGE_MAP_SCRIPT = r"""
import json, resource, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
import parquet_core as pc
col = pc.read_table(sys.argv[1]).column("arr")
entries = col.values
key, value = entries.values
keys = key.values
lengths = np.diff(keys.offsets).tolist()
print(json.dumps({
    "type": str(col.type), "rows": len(col), "map_offsets": col.offsets.tolist(),
    "map_valid": col.validity is None, "key_lengths": lengths,
    "offset_dtype": str(keys.offsets.dtype),
    "all_a": bool((keys.data == ord("a")).all()), "values": value.to_pylist(),
    "arrow_type": str(pc.Table(pc.Schema([pc.Field("arr", col.type)]), [col]).to_arrow().schema.field("arr").type),
    "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
}))
"""


@pytest.mark.slow
def test_large_string_map(corpus: Path) -> None:
    """2 GiB of keys: 64-bit offsets, the values duckdb reads, peak memory under 3x the data.

    duckdb reads this file as two rows, each one entry: a key of 2**30 'a'
    characters mapped to 1 (``length(map_keys(arr)[1])``, ``map_values(arr)``,
    and ``map_keys(arr)[1] = repeat('a', 1073741824)`` checked with duckdb
    1.x; pyarrow refuses the file: "Nested data conversions not implemented
    for chunked array outputs").  Runs in a subprocess to measure its memory.
    """
    path = corpus / "large_string_map.brotli.parquet"
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", _LARGE_MAP_SCRIPT, str(path), root],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["type"] == "map<string, int32>"
    assert facts["rows"] == 2 and facts["map_offsets"] == [0, 1, 2] and facts["map_valid"]
    assert facts["key_lengths"] == [2**30, 2**30]
    assert facts["offset_dtype"] == "int64" and facts["all_a"]
    assert facts["values"] == [1, 1]
    assert facts["arrow_type"] == "map<large_string, int32>"
    data_kb = 2**31 // 1024
    assert facts["max_rss_kb"] < 3 * data_kb, f"peak memory {facts['max_rss_kb']} KB for {data_kb} KB of data"


def _selections(path: Path) -> list[list[str]]:
    md = pq.ParquetFile(path).metadata
    paths = [md.schema.column(i).path for i in range(md.num_columns)]
    prefixes = {".".join(p.split(".")[:k]) for p in paths for k in range(1, len(p.split(".")) + 1)}
    return [[p] for p in sorted(prefixes)] + [paths[::-1], paths[::2]]


@pytest.mark.parametrize("name", NESTED_FILES)
def test_projection_matches_pyarrow(corpus: Path, name: str) -> None:
    """Every leaf path and path prefix, alone and in groups, selects what pyarrow selects.

    pyarrow's pruned types sometimes rename list elements (``item``) or drop a
    nullability flag, so the values are compared, and the types only when
    whole fields are selected (test_corpus.py).
    """
    path = corpus / name
    pf = pc.ParquetFile(path)
    for cols in _selections(path):
        theirs = pq.ParquetFile(path).read(columns=cols)
        ours = pf.read(columns=cols)
        assert ours.column_names == theirs.column_names, cols
        mine = ours.to_arrow()
        for c in theirs.column_names:
            a, b = mine.column(c).combine_chunks(), theirs.column(c).combine_chunks()
            if a.type == b.type:
                assert a.equals(b), (cols, c)
            else:
                assert a.to_pylist() == b.to_pylist(), (cols, c)


def test_projection_errors(corpus: Path) -> None:
    pf = pc.ParquetFile(corpus / "nullable.impala.parquet")
    with pytest.raises(ValueError, match="no column named"):
        pf.read(columns=["nested_struct.nope"])
    with pytest.raises(ValueError, match="no column named"):
        pf.read(columns=["int_map.key"])  # a path must follow the file's schema names
    t = pf.read(columns=["nested_struct.A", "nested_struct"])
    assert t.column_names == ["nested_struct"] and t.schema == pf.read(columns=["nested_struct"]).schema


def test_null_empty_and_null_element_lists_keep_arrow_layout() -> None:
    """Offsets and validity equal the buffers of pyarrow's own array of the same values."""
    values = [None, [], [None], [1, None, 3], None, [], [4]]
    arr = pa.array(values, type=pa.list_(pa.int64()))
    buf = io.BytesIO()
    pq.write_table(pa.table({"l": arr}), buf, data_page_size=16, write_batch_size=1)
    col = pc.read_table(buf.getvalue()).column("l")
    assert isinstance(col, ListArray)
    assert col.offsets.tolist() == arr.offsets.to_pylist()
    assert col.validity.tolist() == arr.is_valid().to_pylist()
    child = arr.values
    assert col.values.validity.tolist() == child.is_valid().to_pylist()
    assert col.values.values[np.asarray(child.is_valid())].tolist() == child.drop_null().to_pylist()
    assert col.to_pylist() == values


def test_struct_children_and_slices() -> None:
    arr = pa.array([{"a": 1, "b": ["x", "y"]}, None, {"a": None, "b": None}, {"a": 4, "b": []}],
                   type=pa.struct([("a", pa.int32()), ("b", pa.list_(pa.string()))]))
    buf = io.BytesIO()
    pq.write_table(pa.table({"s": arr}), buf, row_group_size=3)
    data = buf.getvalue()
    col = pc.read_table(data).column("s")
    assert isinstance(col, StructArray) and len(col) == 4
    assert col.field("a").to_pylist() == [1, None, None, 4]
    assert col.field("b").to_pylist() == [["x", "y"], None, None, []]
    assert col.to_pylist() == arr.to_pylist()
    assert col.slice(1, 4).to_pylist() == arr.to_pylist()[1:4]
    batches = list(pc.ParquetFile(data).iter_batches(batch_size=2))
    # batches run across row groups, as pyarrow's do
    theirs = pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=2)
    assert [b.column("s").to_pylist() for b in batches] == [b.column("s").to_pylist() for b in theirs]


def test_empty_data_page_that_pyarrow_misreads() -> None:
    """pyarrow 26 writes an empty first data page with a 1-byte page size and reads 0 rows back.

    The footer says 1 row and duckdb reads that row; so do we.
    """
    duckdb = pytest.importorskip("duckdb")
    t = pa.list_(pa.field("element", pa.binary(), nullable=False))
    table = pa.Table.from_arrays([pa.array([[b"a", b"bc"]], type=t)], schema=pa.schema([pa.field("c", t)]))
    buf = io.BytesIO()
    pq.write_table(table, buf, data_page_size=1, use_dictionary=True)
    data = buf.getvalue()
    pf = pc.ParquetFile(data)
    pages = [p.num_values for p in pf.column_chunk(0, 0).pages()]
    assert 0 in pages  # the empty page is there
    assert pq.read_table(io.BytesIO(data)).num_rows in (0, 1)  # 0: the pyarrow bug; 1 once fixed
    with tempfile.NamedTemporaryFile(suffix=".parquet") as fh:
        fh.write(data)
        fh.flush()
        expected = [row[0] for row in duckdb.sql(f"select c from read_parquet('{fh.name}')").fetchall()]
    assert pc.read_table(data).column("c").to_pylist() == expected == [[b"a", b"bc"]]
