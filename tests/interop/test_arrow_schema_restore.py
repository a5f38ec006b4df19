"""``read_table(...).to_arrow()`` gives back the Arrow types pyarrow restores from a file's
``ARROW:schema`` (time zone names, durations, dictionaries, large types), with equal values;
pyarrow is the oracle for which types come back."""

from __future__ import annotations

import datetime as dt

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
