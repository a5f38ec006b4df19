"""Spark test helpers shared by several modules of tests/spark: whether Spark can run here,
the light-shim check, and row comparison of two DataFrames."""

from __future__ import annotations

import base64
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["MASTER_KEYS", "REPO_ROOT", "assert_same", "assert_shim_is_light", "hadoop_crypto_options", "rows",
           "spark_skip_reason", "stale_filter_counts"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def spark_skip_reason() -> str | None:
    """Why Spark tests cannot run here (no pyspark, no Java), or None."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install -e '.[spark]')"
    if _java() is None:
        return "no Java runtime: `java` is not on PATH and JAVA_HOME is unset (Spark 4 needs Java 17/21)"
    return None


def assert_shim_is_light(module: str, source_name: str, heavy: tuple[str, ...]) -> None:
    """Importing the auto-discovery shim *module* (which Spark's data-source lookup does in
    every lookup) names *source_name* and imports none of *heavy*; in a fresh interpreter."""
    code = (f"import sys, {module}; "
            f"assert {module}.DefaultSource.name() == {source_name!r}; "
            f"heavy = [m for m in {heavy!r} if m in sys.modules]; assert not heavy, heavy")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=str(REPO_ROOT))


def _canon(value: Any) -> Any:
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def rows(df: Any, sort: bool = False) -> list[tuple[Any, ...]]:
    """A DataFrame's rows as tuples (floats by ``repr``, so NaN and -0.0 count)."""
    out = [tuple(_canon(v) for v in r) for r in df.collect()]
    return sorted(out, key=repr) if sort else out


def assert_same(ours: Any, theirs: Any, sort: bool = False) -> None:
    """Two DataFrames with the same schema and the same rows (in order unless *sort*)."""
    assert ours.schema == theirs.schema, (ours.schema.simpleString(), theirs.schema.simpleString())
    got, want = rows(ours, sort), rows(theirs, sort)
    assert len(got) == len(want)
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not bad, f"{len(bad)} rows differ, first at {bad[0]}: ours={got[bad[0]]} spark={want[bad[0]]}"


def stale_filter_counts(spark: Any, df: Any, view: str) -> list[int]:
    """The stale-pushed-filter sequence (Spark 4.1-4.3 reuse a pushed reader) on one
    DataFrame: filtered and unfiltered counts, through the DataFrame and through SQL."""
    df.createOrReplaceTempView(view)
    return [df.filter("id < 3").count(), df.count(), df.filter("id < 5 or qty = 3").count(),
            spark.sql(f"select count(*) from {view}").collect()[0][0]]


#: The master keys of the Java test KMS (parquet_core/compat/java/PqcoreTestKms.java).
MASTER_KEYS = {"kf": b"0123456789012345", "kc1": b"1234567890123450",
               "kc2": b"12345678901234567890123456789012"}


def hadoop_crypto_options(**extra: str) -> dict[str, str]:
    """Hadoop options that make Spark's Parquet reader and writer use parquet-java's key tools
    with the test KMS and :data:`MASTER_KEYS`."""
    keys = ",".join(f"{k}:{base64.b64encode(v).decode()}" for k, v in MASTER_KEYS.items())
    return {"parquet.crypto.factory.class":
            "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory",
            "parquet.encryption.kms.client.class": "PqcoreTestKms",
            "pqcore.test.master.keys": keys, **extra}
