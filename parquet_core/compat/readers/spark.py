"""Spark's built-in Parquet reader (parquet-java) through a local SparkSession, session time zone UTC.

The session starts once per child process (tens of seconds), so the runner
hands this reader all files through one process.  Encrypted files are read through
parquet-java's ``PropertiesDrivenCryptoFactory`` and a test KMS class compiled into the
JVM (:mod:`parquet_core.compat.kms`) when they were written with one; files encrypted
with explicit keys are n/a (Spark takes no keys but through a KMS).
"""

from __future__ import annotations

from typing import Any

from parquet_core.compat.canonical import from_arrow, from_arrow_batches, from_python
from parquet_core.compat.readers import NotApplicable

#: a JVM reserves far more address space than it uses; its heap is capped by -Xmx instead
MEMORY_LIMIT = None
STARTUP_SECONDS = 300
MIN_TIMEOUT = 120

_session: Any = None


def _spark() -> Any:
    global _session
    if _session is None:
        from pyspark.sql import SparkSession
        _session = (SparkSession.builder.master("local[1]").appName("pqc-compat")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.session.timeZone", "UTC")
                    .config("spark.driver.memory", "1g")
                    .config("spark.sql.shuffle.partitions", "1")
                    .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                    .getOrCreate())
        _session.sparkContext.setLogLevel("OFF")
    return _session


def version() -> str:
    import pyspark
    _spark()
    return pyspark.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    options: dict[str, str] = {}
    if keys and "kms" in keys:
        from parquet_core.compat.kms import define_test_kms, spark_read_options
        try:
            define_test_kms(_spark())
        except RuntimeError as exc:   # no javac: the KMS class cannot be built
            raise NotApplicable(str(exc)) from None
        options = spark_read_options({k: bytes.fromhex(v) for k, v in keys["kms"].items()})
    elif keys:
        raise NotApplicable("Spark takes keys only through a KMS class (PropertiesDrivenCryptoFactory)")
    try:
        df = _spark().read.options(**options).parquet(path)
        try:
            return _arrow_values(df)
        except Exception:  # noqa: BLE001 - pyspark's Arrow conversion, not the reader: take rows
            rows = df.collect()
            return {name: [from_python(_plain(r[i])) for r in rows] for i, name in enumerate(df.columns)}
    except Exception as exc:
        raise RuntimeError(_java_message(exc)) from None


def _arrow_values(df: Any) -> dict[str, list]:
    """The DataFrame's values through Arrow: ``toArrow`` (Spark 4), else pyspark's own Arrow
    collector (Spark 3.5, measured through ``pqc compat --python``)."""
    if hasattr(df, "toArrow"):
        return from_arrow(df.toArrow())
    from pyspark.sql.pandas.types import to_arrow_schema
    return from_arrow_batches(df._collect_as_arrow(), to_arrow_schema(df.schema))


def _plain(v: Any) -> Any:
    """Rows and nested rows as dicts (their fields by name); a Variant as its two binaries
    (decoded by the comparison), a geometry or geography as its WKB."""
    kind = type(v).__name__
    if kind == "VariantVal":
        return {"metadata": bytes(v.metadata), "value": bytes(v.value)}
    if kind in ("Geometry", "Geography"):
        return bytes(v.getBytes())
    if hasattr(v, "asDict"):
        return {k: _plain(x) for k, x in v.asDict().items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return [[k, _plain(x)] for k, x in v.items()]
    return v


def _java_message(exc: BaseException) -> str:
    """The innermost Java cause of a Py4JJavaError (its first line says only which call failed)."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    while java.getCause() is not None:
        java = java.getCause()
    return str(java.toString()).splitlines()[0]
