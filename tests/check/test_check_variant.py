"""``pqc check`` on shredded Variant rows that break VariantShredding.md, and how they read.

The files are built from raw group rows (the stored ``metadata``/``value``/``typed_value``),
which our writer keeps as given for a variant array of the same layout.  What a reader must
do comes from the spec: a field both shredded and in ``value`` is read from ``typed_value``
(parquet-testing shredded_variant case 125), a value beside a shredded primitive cannot be
read (case 42).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.schema.types import DataType
from parquet_core.table.ingest_nested import nested_from_pylist
from parquet_core.table.nested import StructArray
from parquet_core.variant.encoding import encode_metadata, encode_value

KEYS = ["a", "b"]
META = encode_metadata(KEYS)
IDS = {k: i for i, k in enumerate(KEYS)}


def _write(tmp_path: Path, layout: DataType, rows: list, name: str = "v.parquet") -> Path:
    raw = nested_from_pylist(rows, "v", DataType("struct", fields=layout.fields))
    arr = StructArray(layout, raw.values, len(rows), raw.validity)
    path = tmp_path / name
    pc.write_table(pc.Table.from_pydict({"v": arr}), path, row_group_size=2)
    return path


def _obj(value: object, a: int | None) -> dict:
    return {"metadata": META, "value": None if value is None else encode_value(value, IDS),
            "typed_value": {"a": {"value": None, "typed_value": a}}}


def _rules(path: Path) -> list[str]:
    return [f.rule for f in pc.check(path).findings if f.rule.startswith("variant.")]


def test_shredded_field_also_in_value(tmp_path: Path) -> None:
    layout = pc.variant({"a": pc.int64()})
    path = _write(tmp_path, layout, [_obj({"b": "x"}, 1), _obj(None, 5), _obj({"a": "dup", "b": "y"}, 2)])
    # the read keeps the shredded field, as the spec says a reader that reads such rows must
    assert pc.read_table(path).column("v").to_pylist() == [{"a": 1, "b": "x"}, {"a": 5}, {"a": 2, "b": "y"}]
    report = pc.check(path)
    assert not report.ok
    [finding] = [f for f in report.findings if f.rule.startswith("variant.")]
    assert finding.rule == "variant.shredded-field-in-value" and finding.severity == "error"
    assert finding.row_group == 1 and finding.column == "v"
    assert "row 0" in finding.message and "'a'" in finding.message


def test_value_beside_shredded_primitive(tmp_path: Path) -> None:
    layout = pc.variant(pc.int64())
    rows = [{"metadata": META, "value": None, "typed_value": 3},
            {"metadata": META, "value": encode_value(7, IDS), "typed_value": 5}]
    path = _write(tmp_path, layout, rows)
    with pytest.raises(pc.ParquetFormatError, match="both set"):
        pc.read_table(path).column("v").to_pylist()
    assert _rules(path) == ["variant.value-and-typed-value"]


def test_valid_shredded_rows_have_no_finding(tmp_path: Path) -> None:
    schema = pc.schema([pc.field("v", pc.variant(shredding={"a": pc.int64(), "t": [pc.string()]}))])
    path = tmp_path / "ok.parquet"
    pc.write_table({"v": [{"a": 1, "b": "x"}, {"a": "s"}, "scalar", None, {"t": ["p", 3]}]}, path, schema=schema)
    assert _rules(path) == []
    assert pc.check(path).ok
