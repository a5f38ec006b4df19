"""Spark's built-in Parquet reader (parquet-java) reads nested files parquet_core wrote.

One job reads three files of the same table -- lists of structs, maps of
lists, a struct holding a list, with null and empty lists and maps and null
elements -- written with the standard layouts on data page v1, with data
page v2 and tiny pages (records across many pages), and with the legacy
list layout.  Values are compared with the table's own Python values
(Spark's Rows turned into dicts, its maps into sorted pairs).
"""

from __future__ import annotations

import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark

N = 60


def _table() -> tuple[dict, "pc.Schema"]:
    item = pc.struct([pc.field("id", pc.int64(), nullable=False), ("tags", pc.list_(pc.string()))])
    schema = pc.schema([
        pc.field("row", pc.int32(), nullable=False),
        pc.field("items", pc.list_(item)),
        pc.field("scores", pc.map_(pc.string(), pc.list_(pc.float64()))),
        pc.field("info", pc.struct([("name", pc.string()), ("xs", pc.list_(pc.int32()))])),
    ])
    items, scores, info = [], [], []
    for i in range(N):
        k = i % 5
        items.append(None if k == 0 else [] if k == 1 else
                     [{"id": i, "tags": ["a", None]}, None, {"id": -i, "tags": None}][: k])
        scores.append(None if k == 2 else [] if k == 3 else
                      [(f"k{j}", None if j == 1 else [float(i), None][: j + 1]) for j in range(k)])
        info.append(None if k == 4 else {"name": None if k == 1 else f"n{i}",
                                         "xs": None if k == 2 else list(range(k))})
    return {"row": list(range(N)), "items": items, "scores": scores, "info": info}, schema


def _plain(v):  # type: ignore[no-untyped-def]
    """Spark values -> the Python values the table was built from."""
    if hasattr(v, "asDict"):
        return {k: _plain(x) for k, x in v.asDict().items()}
    if isinstance(v, dict):
        return sorted((k, _plain(x)) for k, x in v.items())
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def test_spark_reads_nested_files(spark, tmp_path):
    data, schema = _table()
    variants = {"v1": {}, "v2_tiny": dict(data_page_version="2.0", data_page_size=8, row_group_size=25),
                "legacy": dict(legacy_list_layout=True, use_dictionary=False)}
    paths = []
    for name, opts in variants.items():
        path = tmp_path / f"{name}.parquet"
        pc.write_table(data, path, schema=schema, **opts)
        paths.append(str(path))
    expected = [{"row": r, "items": it, "scores": None if sc is None else sorted(sc), "info": inf}
                for r, it, sc, inf in zip(data["row"], data["items"], data["scores"], data["info"])]
    for path in paths:
        rows = spark.read.parquet(path).orderBy("row").collect()
        got = [{k: _plain(v) for k, v in r.asDict().items()} for r in rows]
        assert got == expected, path


def test_spark_page_index_filtering_on_nested_pages(spark, tmp_path):
    """parquet-java's column-index filtering skips pages by ``first_row_index``.

    With one record or so a page, a filter on the sorted ``row`` column makes
    parquet-java read only the pages of the selected rows in every column,
    the nested ones included, placing them by the offset index's
    ``first_row_index``: a wrong index gives wrong rows.
    """
    data, schema = _table()
    path = tmp_path / "paged.parquet"
    pc.write_table(data, path, schema=schema, data_page_size=1, data_page_row_count_limit=2,
                   use_dictionary=False)
    spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    rows = spark.read.parquet(str(path)).filter("row >= 21 AND row <= 33").orderBy("row").collect()
    got = [{k: _plain(v) for k, v in r.asDict().items()} for r in rows]
    expected = [{"row": r, "items": data["items"][r],
                 "scores": None if data["scores"][r] is None else sorted(data["scores"][r]),
                 "info": data["info"][r]} for r in range(21, 34)]
    assert got == expected
    offsets = pc.ParquetFile(path).offset_index(0, "items.list.element.id")
    assert len(offsets.page_locations) > 10
