"""Spark's built-in reader (``spark.read.parquet``) reads pandas frames written with
``flavor="spark"`` or ``coerce_timestamps="us"``.

A pandas frame has nanosecond timestamps. Written with the defaults (format
2.6) they are TIMESTAMP(NANOS), which Spark's reader refuses; the first test
pins that, so the other two show what the options change:

* ``flavor="spark"``: INT96 timestamps and names without the characters
  Spark's schema parser refuses (``"event time"`` becomes ``event_time``);
* ``coerce_timestamps="us"``: INT64 TIMESTAMP(MICROS), naive columns read as
  TIMESTAMP_NTZ and UTC-adjusted ones as TIMESTAMP.

Values are compared as epoch microseconds (``unix_micros``) against the
frame itself, so no time zone conversion happens on the way.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc

pytestmark = pytest.mark.spark
pd = pytest.importorskip("pandas")

N = 500


def _frame():
    rng = np.random.default_rng(11)
    micros = rng.integers(-2_000_000_000_000_000, 4_000_000_000_000_000, N)   # 1906 .. 2096, microsecond-exact
    naive = pd.Series(pd.to_datetime(micros * 1000, unit="ns"))
    naive[::17] = pd.NaT
    return pd.DataFrame({
        "id": np.arange(N, dtype=np.int64),
        "event time": naive,
        "utc,ts": pd.Series(pd.to_datetime((micros[::-1] * 1000), unit="ns", utc=True)),
        "label": [f"r{i}" for i in range(N)],
    })


def _expected(frame) -> list[tuple]:
    def micros(s):
        vals = s.dt.tz_localize(None) if s.dt.tz is not None else s
        ints = vals.to_numpy("datetime64[ns]").astype(np.int64) // 1000
        return [None if pd.isna(v) else int(i) for v, i in zip(s, ints)]
    return list(zip(frame["id"].tolist(), micros(frame["event time"]), micros(frame["utc,ts"]),
                    frame["label"].tolist()))


def _read(spark, path, names) -> list[tuple]:
    df = spark.read.parquet(str(path))
    a, b = names
    rows = df.selectExpr("id", f"unix_micros(cast(`{a}` as timestamp))", f"unix_micros(cast(`{b}` as timestamp))",
                         "label").orderBy("id").collect()
    return [tuple(r) for r in rows]


def test_default_nanosecond_timestamps_are_refused_by_spark(spark, tmp_path):
    path = tmp_path / "defaults.parquet"
    pc.write_table(_frame()[["id", "event time"]], path)
    with pytest.raises(Exception, match="Illegal Parquet type|TIMESTAMP\\(NANOS"):
        spark.read.parquet(str(path)).collect()


def test_spark_flavor_frame_reads_in_spark(spark, tmp_path):
    frame = _frame()
    path = tmp_path / "flavor.parquet"
    pc.write_table(frame, path, flavor="spark")
    df = spark.read.parquet(str(path))
    assert df.columns == ["id", "event_time", "utc_ts", "label"]
    assert {f.name: f.dataType.simpleString() for f in df.schema.fields}["event_time"] == "timestamp"
    assert _read(spark, path, ("event_time", "utc_ts")) == _expected(frame)


def test_coerce_timestamps_us_frame_reads_in_spark(spark, tmp_path):
    frame = _frame().rename(columns={"utc,ts": "utc_ts"})
    path = tmp_path / "coerced.parquet"
    pc.write_table(frame, path, coerce_timestamps="us")
    types = {f.name: f.dataType.simpleString() for f in spark.read.parquet(str(path)).schema.fields}
    assert (types["event time"], types["utc_ts"]) == ("timestamp_ntz", "timestamp")
    assert _read(spark, path, ("event time", "utc_ts")) == _expected(frame.rename(columns={"utc_ts": "utc,ts"}))
