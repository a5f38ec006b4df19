"""Every dataset real Kartothek 5.3 wrote reads to the rows Kartothek read (values compared).

Where Kartothek's own answer is wrong, the test is named after the bug and
checks both that the oracle shows the bug and that we return the right rows.
"""

from __future__ import annotations

import ast
import datetime as dt

import pytest

import parquet_core as pc
from parquet_core_integrations.kartothek import read_dataset, iter_partitions
from parquet_core_integrations.kartothek.errors import DatasetNotFoundError, KartothekError, PredicateError
from tests._support.kartothek import canon_rows, expected, table_rows

CASES = [
    ("simple_json", "table"), ("simple_msgpack", "table"), ("partitioned_indexed", "table"),
    ("partitioned_indexed_gc", "table"), ("multi_table", "core"), ("multi_table", "helper"),
    ("implicit_partitions", "table"), ("committed", "table"), ("built_index", "table"),
    ("alltypes_rowgroups", "table"),
]


@pytest.mark.parametrize("uuid,table", CASES)
def test_reads_like_kartothek(ktk_store, uuid, table):
    exp = expected(f"{uuid}__{table}__read_table")
    got = read_dataset(ktk_store, uuid, table=table)
    assert got.column_names == exp["columns"]
    assert table_rows(got) == canon_rows(exp["rows"])


def test_predicate_on_row_groups_like_kartothek(ktk_store):
    exp = expected("alltypes_rowgroups__pred_int8_ge_2")
    preds = ast.literal_eval(exp["kwargs"]["predicates"])
    got = read_dataset(ktk_store, "alltypes_rowgroups", predicates=preds)
    assert table_rows(got) == canon_rows(exp["rows"])


def test_B10_types_come_from_common_metadata(ktk_store):
    """Kartothek bug B10: output types are not normalized to ``_common_metadata``."""
    got = read_dataset(ktk_store, "alltypes_rowgroups")
    types = {f.name: str(f.type) for f in got.schema}
    # the data file holds int8/uint8/float32; _common_metadata says int64/uint64/float64
    assert types["int8"] == "int64" and types["uint8"] == "uint64" and types["float32"] == "float64"
    assert str(got.schema.field(got.column_names.index("array_int8")).type).startswith("list")
    assert "__index_level_0__" not in read_dataset(ktk_store, "partitioned_indexed").column_names


def test_B3_false_bool_partition_reads_false(ktk_store):
    """Kartothek bug B3: a partition value ``pbool=False`` reads back True (numpy.bool_("False"))."""
    exp = expected("typed_partitions__table__read_table")
    labels_false = [r for r in exp["rows"] if r[4] == "ü"]
    assert labels_false[0][1] is True            # the oracle shows the bug
    got = read_dataset(ktk_store, "typed_partitions").to_pylist()
    by_str = {r["pstr"]: r for r in got}
    assert by_str["ü"]["pbool"] is False and by_str["a b"]["pbool"] is True
    assert by_str["ü"]["pdate"] == dt.date(2018, 1, 2)
    assert by_str["ü"]["pts"] == dt.datetime(2018, 1, 1, 12, 30)
    assert by_str["ü"]["pfloat"] == -0.25
    # the rest of each row is what Kartothek read
    fixed = [[v if i != 1 else (r[4] == "a b") for i, v in enumerate(r)] for r in exp["rows"]]
    assert table_rows(read_dataset(ktk_store, "typed_partitions")) == canon_rows(fixed)


def test_B3_predicate_on_false_bool_partition(ktk_store):
    exp = expected("typed_partitions__pred_pbool_eq_False")
    assert exp["rows"][0][1] is True             # Kartothek: selected by False, returned as True
    got = read_dataset(ktk_store, "typed_partitions", predicates=[[("pbool", "==", False)]]).to_pylist()
    assert [(r["pstr"], r["pbool"]) for r in got] == [("ü", False)]


def test_B8_date_and_timestamp_partition_literals_as_text(ktk_store):
    """Kartothek bug B8: a str literal on a date partition key silently matches nothing."""
    got = read_dataset(ktk_store, "typed_partitions", predicates=[[("pdate", "==", "2018-01-02")]])
    assert [r["payload"] for r in got.to_pylist()] == [2]
    got = read_dataset(ktk_store, "typed_partitions", predicates=[[("pts", "<", "2018-01-01 06:00:00")]])
    assert [r["payload"] for r in got.to_pylist()] == [1]


def test_B8_int_literal_on_float_column(ktk_store):
    """Kartothek bug B8: an int literal against a float column raises TypeError."""
    got = read_dataset(ktk_store, "simple_json", predicates=[[("value", ">=", 4)]])
    assert sorted(r["id"] for r in got.to_pylist()) == [4, 5]


def test_B10_ordered_string_comparison_with_nulls(ktk_store):
    """Kartothek bug B10: ``<``/``>`` on a string column holding None raise TypeError."""
    got = read_dataset(ktk_store, "simple_json", predicates=[[("name", "<", "c")]])
    assert sorted(r["id"] for r in got.to_pylist()) == [1, 2]


def test_null_predicates_follow_kartothek_row_semantics(ktk_store):
    def ids(preds):
        return sorted(r["id"] for r in read_dataset(ktk_store, "simple_json", predicates=preds).to_pylist())
    assert ids([[("name", "==", None)]]) == [3]
    assert ids([[("value", "==", float("nan"))]]) == [2]
    assert ids([[("name", "!=", "a")]]) == [2, 3, 4, 5]       # != keeps nulls, as in Kartothek
    assert ids([[("name", "!=", None)]]) == [1, 2, 4, 5]
    assert ids([[("name", "in", ["a", None])]]) == [1, 3]
    assert ids([[("name", "in", [])]]) == []
    assert ids([[("id", "==", 1)], [("id", "==", 5)]]) == [1, 5]


def test_partition_and_index_pruning(ktk_store):
    plan_rows = list(iter_partitions(ktk_store, "partitioned_indexed", predicates=[[("C", "==", 4)]]))
    # the index of C lists exactly two partitions for 4
    assert sorted(label for label, _ in plan_rows) == ["P=1/L=M%C3%BCnchen/first", "P=3/L=x%20y%3Dz%26%25/second"]
    assert sorted(r["C"] for _, t in plan_rows for r in t.to_pylist()) == [4, 4]
    got = read_dataset(ktk_store, "partitioned_indexed", predicates=[[("L", "==", "x y=z&%"), ("P", ">", 1)]])
    assert [(r["P"], r["C"]) for r in got.to_pylist()] == [(3, 4)]
    got = read_dataset(ktk_store, "partitioned_indexed", columns=["L", "V"],
                       predicates=[[("S", "in", ["s0"])], [("V", "==", 5)]])
    assert sorted((r["L"], r["V"]) for r in got.to_pylist()) == [("München", 0), ("München", 0),
                                                                   ("München", 3), ("plain", 5)]
    assert got.column_names == ["L", "V"]


def test_B2_or_branch_without_index_keeps_all_partitions(tmp_path, ktk_store):
    """Kartothek bug B2: a partition absent from an index (its column all null there) is
    dropped even for an OR branch that does not name the indexed column."""
    import json
    import shutil
    root = tmp_path / "s"
    shutil.copytree(ktk_store / "partitioned_indexed", root / "partitioned_indexed")
    meta = root / "partitioned_indexed.by-dataset-metadata.json"
    md = json.loads((ktk_store / meta.name).read_text())
    # an index of C that lists only one partition, as if C were null in all others
    md["indices"]["C"] = {"4": ["P=1/L=M%C3%BCnchen/first"]}
    meta.write_text(json.dumps(md))
    got = read_dataset(root, "partitioned_indexed", predicates=[[("C", "==", 4)], [("P", "==", 3)]])
    # Kartothek returns only (1, 4): the P=3 partitions are not in C's index
    assert sorted((r["P"], r["C"]) for r in got.to_pylist()) == [(1, 4), (3, 0), (3, 4)]


def test_empty_result_keeps_schema(ktk_store):
    got = read_dataset(ktk_store, "partitioned_indexed", predicates=[[("P", "==", 99)]])
    assert got.num_rows == 0 and got.column_names == ["P", "L", "C", "D", "F", "S", "TS", "V"]
    got = read_dataset(ktk_store, "partitioned_indexed", columns=[], predicates=[[("P", "==", 2)]])
    assert got.num_rows == 4 and got.column_names == []


def test_bad_requests(ktk_store):
    with pytest.raises(DatasetNotFoundError):
        read_dataset(ktk_store, "nope")
    with pytest.raises(KartothekError):
        read_dataset(ktk_store, "bad.uuid")
    with pytest.raises(PredicateError):
        read_dataset(ktk_store, "simple_json", predicates=[[("id", "=~", 1)]])
    with pytest.raises(PredicateError):
        read_dataset(ktk_store, "simple_json", predicates=[[("id", "==", "x")]])
    with pytest.raises(PredicateError):
        read_dataset(ktk_store, "simple_json", predicates=[[("missing", "==", 1)]])
    with pytest.raises(PredicateError):
        read_dataset(ktk_store, "simple_json", predicates=[])
    with pytest.raises(KartothekError):
        read_dataset(ktk_store, "simple_json", columns=["nope"])
    assert issubclass(KartothekError, pc.ParquetError)


def test_damaged_datasets_give_clear_errors(tmp_path, ktk_store):
    import shutil

    root = tmp_path / "s"
    shutil.copytree(ktk_store / "partitioned_indexed", root / "partitioned_indexed")
    shutil.copy(ktk_store / "partitioned_indexed.by-dataset-metadata.json", root)
    for p in root.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    table = root / "partitioned_indexed" / "table"
    (table / "P=2" / "L=plain" / "first.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    with pytest.raises(pc.ParquetError) as info:
        read_dataset(root, "partitioned_indexed", columns=["C"])
    assert any("P=2/L=plain/first" in note for note in getattr(info.value, "__notes__", []))
    (table / "P=2" / "L=plain" / "first.parquet").unlink()
    with pytest.raises(KartothekError, match="missing"):
        read_dataset(root, "partitioned_indexed")
    # the files of the other partitions still read
    assert read_dataset(root, "partitioned_indexed", predicates=[[("P", "==", 1)]]).num_rows == 3
    (table / "_common_metadata").unlink()
    with pytest.raises(KartothekError, match="_common_metadata"):
        read_dataset(root, "partitioned_indexed")
