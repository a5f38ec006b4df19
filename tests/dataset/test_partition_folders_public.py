"""The public folder-name parser and type inference the dataset layer and the Spark adapter share,
pinned against pyarrow (its own escaping and its own inference)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1,
               max_size=12))
def test_parse_hive_folder_inverts_pyarrow_escaping(value):
    """pyarrow names the folder (UTF-8 bytes as %XX); the parser gives the value back.
    (No NUL: no file system allows it in a name, and pyarrow cuts the value there.)"""
    folder, _ = ds.partitioning(pa.schema([("k", pa.string())]), flavor="hive").format(ds.field("k") == value)
    assert pc.parse_hive_folder(folder) == ("k", value)


@pytest.mark.parametrize("name, expected", [
    ("k=%C3%A9", ("k", "\u00e9")), ("k=a%2Fb", ("k", "a/b")), ("k=é", ("k", "é")),
    ("k=__HIVE_DEFAULT_PARTITION__", ("k", None)), ("%6B=1", ("k", "1")), ("k=", ("k", "")),
    ("plain", None), ("=1", None), ("k=a=b", ("k", "a=b")),
])
def test_parse_hive_folder(name, expected):
    assert pc.parse_hive_folder(name) == expected


@pytest.mark.parametrize("values", [
    ["1", "2"], ["1", "3000000000"], ["-5", "x"], ["1.5"], ["2024-01-02"], ["007"], ["+3", "4"],
])
def test_pyarrow_policy_equals_pyarrow(tmp_path, values):
    for i, v in enumerate(values):
        folder = tmp_path / f"p={v}"
        folder.mkdir(exist_ok=True)
        pq.write_table(pa.table({"n": [i]}), str(folder / f"f{i}.parquet"))
    want = ds.dataset(str(tmp_path), partitioning="hive").schema.field("p").type
    got = pc.infer_partition_type(values)
    assert str(got) == {"int32": "int32", "string": "string"}[str(want)]
    assert pc.read_table(str(tmp_path)).schema.field("p").type == got


@pytest.mark.parametrize("values, expected", [
    (["1", "2"], pc.int32()), (["1", "3000000000"], pc.int64()), (["1", "1.5"], pc.float64()),
    (["123456789012345678901"], pc.decimal(21, 0)), (["1.0E10", "2"], pc.decimal(11, 0)),
    (["2024-01-02"], pc.date32()), (["2024-01-02 10:00:00"], pc.timestamp("us", utc=True)),
    (["2024-01-02", "2024-01-02 10:00:00.5"], pc.timestamp("us", utc=True)),
    (["2024-01-02 10:00:00.12"], pc.string()), (["1", "2024-01-02"], pc.string()),
    ([None, "5"], pc.int32()), ([None], pc.null()), (["true"], pc.string()), (["NaN"], pc.float64()),
])
def test_spark_policy(values, expected):
    """Spark's inference (observed types are checked against Spark's reader in tests/spark)."""
    assert pc.infer_partition_type(values, flavor="spark") == expected


def test_unknown_flavor():
    with pytest.raises(ValueError, match="flavor"):
        pc.infer_partition_type(["1"], flavor="hive")


def test_list_data_files_skips_litter(tmp_path):
    for rel in ["a=1/f.parquet", "a=1/_SUCCESS", "a=1/.f.crc", "_tmp/x.parquet", "b.parquet._COPYING_",
                "_metadata", "g.parquet"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x")
    got = [p for p, _ in pc.list_data_files(str(tmp_path))]
    assert got == sorted([str(tmp_path / "a=1/f.parquet"), str(tmp_path / "g.parquet")])
    assert pc.is_hidden("_SUCCESS") and pc.is_hidden(".x.crc") and not pc.is_hidden("part-0.parquet")
