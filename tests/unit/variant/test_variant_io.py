"""Variant columns through our writer and reader: round trips, errors, statistics and pruning."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

import parquet_core as pc
from parquet_core.variant import NULL

UTC = dt.timezone.utc
VALUES = [{"event_type": "signup", "n": 1, "tags": ["a", NULL]}, "hello", None, NULL, 2 ** 64,
          Decimal("1.50"), dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
          pc.NanoDatetime(2024, 1, 2, nanosecond=5), dt.time(1, 2, 3), b"\x01", 1.5, [1, [2]], {}]
EVENT = {"event_type": pc.string(), "n": pc.int64(), "tags": [pc.string()]}


def _expected(v):
    return NULL if v is NULL else v


@pytest.mark.parametrize("shredding", [None, EVENT, pc.string(), [pc.int64()]])
def test_round_trip(tmp_path, shredding) -> None:
    path = tmp_path / "v.parquet"
    schema = pc.schema([pc.field("v", pc.variant(shredding))])
    pc.write_table({"v": VALUES}, path, schema=schema)
    t = pc.read_table(path)
    assert t.schema.field("v").type == pc.variant(shredding)
    assert t.column("v").to_pylist() == [_expected(v) for v in VALUES]
    assert t.column("v").to_pylist()[2] is None and t.column("v").to_pylist()[3] is NULL
    # our own table (read back) written again keeps the values, under another layout too
    pc.write_table(t, tmp_path / "again.parquet", schema=pc.schema([pc.field("v", pc.variant(EVENT))]))
    assert pc.read_table(tmp_path / "again.parquet").column("v").to_pylist() == t.column("v").to_pylist()


def test_arrow_struct_back_in(tmp_path) -> None:
    pytest.importorskip("pyarrow")
    pc.write_table({"v": VALUES}, tmp_path / "a.parquet", schema=pc.schema([pc.field("v", pc.variant(EVENT))]))
    arrow = pc.read_table(tmp_path / "a.parquet").to_arrow()          # the stored struct
    pc.write_table(arrow, tmp_path / "b.parquet", schema=pc.schema([pc.field("v", pc.variant())]))
    assert pc.read_table(tmp_path / "b.parquet").column("v").to_pylist() == [_expected(v) for v in VALUES]


def test_layout_of_shredded_object(tmp_path) -> None:
    pc.write_table({"v": VALUES}, tmp_path / "s.parquet", schema=pc.schema([pc.field("v", pc.variant(EVENT))]))
    paths = [c.path for c in pc.read_metadata(tmp_path / "s.parquet").schema]
    assert ("v", "typed_value", "event_type", "typed_value") in paths
    assert ("v", "typed_value", "tags", "typed_value", "list", "element", "typed_value") in paths


def test_errors(tmp_path) -> None:
    with pytest.raises(pc.ParquetSchemaError, match=r"'v'.*row 1"):
        pc.write_table({"v": [1, object()]}, tmp_path / "x.parquet", schema=pc.schema([pc.field("v", pc.variant())]))
    with pytest.raises(ValueError):
        pc.variant({"a": pc.map_(pc.string(), pc.int64())})
    with pytest.raises(pc.ParquetSchemaError):
        pc.write_table({"v": [None]}, tmp_path / "y.parquet",
                       schema=pc.schema([pc.field("v", pc.variant(), nullable=False)]))


def _events(n_groups: int = 4) -> list:
    out = []
    for g, kind in enumerate(["signup", "login", "view", "click"][:n_groups]):
        out += [{"event_type": kind, "n": g * 100 + i, "x": {"k": i}} for i in range(100)]
    return out


def test_shredded_statistics_prune(tmp_path) -> None:
    path = tmp_path / "p.parquet"
    values = _events()
    values[350] = {"event_type": 5, "n": "late"}      # group 3 has an untyped event_type and n
    pc.write_table({"v": values}, path, schema=pc.schema([pc.field("v", pc.variant(EVENT))]),
                   row_group_size=100)
    pf = pc.ParquetFile(path)
    stats = pf.metadata.row_group(0).column(3).statistics
    assert pf.metadata.row_group(0).column(3).path_in_schema == "v.typed_value.event_type.typed_value"
    assert stats.min == "signup" == stats.max
    f = pc.col("v").field("event_type") == "signup"
    assert pf.explain(f).pruned_by_statistics == [1, 2]       # group 3: value not all null, kept
    got = pc.read_table(path, filters=f).column("v").to_pylist()
    assert got == [v for v in values if v["event_type"] == "signup"]
    f = pc.col("v").field("n") >= 150
    assert pf.explain(f).pruned_by_statistics == [0]
    assert pc.read_table(path, filters=f).column("v").to_pylist() == \
        [v for v in values if isinstance(v["n"], int) and v["n"] >= 150]
    # another type than the shredded one: no pruning, type-strict match
    f = pc.col("v").field("event_type") == 5
    assert pf.explain(f).pruned_by_statistics == []
    assert pc.read_table(path, filters=f).column("v").to_pylist() == [values[350]]
    # an unshredded field: nothing to prune on, rows still filtered
    f = pc.col("v").field("x", "k").isin([7])
    assert pf.explain(f).pruned_by_statistics == []
    assert len(pc.read_table(path, filters=f)) == 4


def test_unshredded_column_filters(tmp_path) -> None:
    path = tmp_path / "u.parquet"
    values = _events(2) + ["not an object", None]
    pc.write_table({"v": values}, path, schema=pc.schema([pc.field("v", pc.variant())]))
    got = pc.read_table(path, filters=pc.col("v").field("event_type") == "login").column("v").to_pylist()
    assert got == values[100:200]


def test_concat_of_layouts(tmp_path) -> None:
    plain, shredded = (pc.schema([pc.field("v", pc.variant(s))]) for s in (None, EVENT))
    pc.write_table({"v": VALUES}, tmp_path / "a.parquet", schema=plain)
    pc.write_table({"v": VALUES}, tmp_path / "b.parquet", schema=shredded)
    a, b = pc.read_table(tmp_path / "a.parquet"), pc.read_table(tmp_path / "b.parquet")
    expected = [_expected(v) for v in VALUES]
    # one layout: kept
    same = pc.Table.concat([b, b])
    assert same.schema.field("v").type == pc.variant(EVENT)
    assert same.column("v").to_pylist() == expected * 2
    # two layouts: refused unless promotion is asked for, then one unshredded variant
    with pytest.raises(pc.ParquetSchemaError, match="promote_options"):
        pc.Table.concat([a, b])
    for promote in ("default", "permissive"):
        both = pc.Table.concat([a, b], promote_options=promote)
        assert both.schema.field("v").type == pc.variant()
        assert both.column("v").to_pylist() == expected * 2
        pc.write_table(both, tmp_path / "c.parquet")
        assert pc.read_table(tmp_path / "c.parquet").column("v").to_pylist() == expected * 2


@pytest.mark.parametrize("shredding", [None, EVENT])
def test_variant_nested_in_lists_and_structs(tmp_path, shredding) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    v = pc.variant(shredding)
    schema = pc.schema([pc.field("l", pc.list_(v)),
                        pc.field("s", pc.struct([pc.field("v", v), pc.field("i", pc.int64())])),
                        pc.field("m", pc.map_(pc.string(), v))])
    rows = {"l": [VALUES[:3], None, [], [NULL, "x", None]],
            "s": [{"v": VALUES[0], "i": 1}, None, {"v": NULL, "i": 2}, {"v": None, "i": 3}],
            "m": [{"k": VALUES[0]}, None, {}, {"a": 1, "b": None}]}
    pc.write_table(rows, tmp_path / "n.parquet", schema=schema)
    got = pc.read_table(tmp_path / "n.parquet")
    assert got.schema == schema
    assert got.column("l").to_pylist() == rows["l"]
    assert got.column("s").to_pylist() == rows["s"]
    assert [None if m is None else dict(m) for m in got.column("m").to_pylist()] == rows["m"]
    # another implementation reads the file: every variant is its (metadata, value[, typed_value]) struct
    arrow = pq.read_table(tmp_path / "n.parquet")
    assert arrow.num_rows == 4
    assert arrow.schema.field("l").type.value_type.field("metadata").type == "binary"
