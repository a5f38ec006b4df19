"""Literals of the ``filter`` / ``filters`` options as Python values of a column's Spark type.

The type is the column's (as Spark casts a literal to the column it meets):
``'2024-01-02'`` against a date column is a date, a number against a decimal
column a ``Decimal``, text against a binary column its UTF-8 bytes.  A
timestamp without an offset is in the ``timeZone`` option's zone (UTC by
default) for TIMESTAMP columns, and as written for TIMESTAMP_NTZ ones.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

__all__ = ["literal_value"]


def literal_value(lit: Any, spark_type: Any, column: str, time_zone: str = "UTC") -> Any:
    """The literal as a Python value of the column's Spark type (the type Spark would compare in)."""
    from pyspark.sql import types as T

    def bad(why: str = "") -> ValueError:
        return ValueError(f"pqcore: option 'filter': cannot compare column {column!r} "
                          f"({spark_type.simpleString()}) with {lit.text!r}{why}")

    kind, text = lit.kind, lit.text
    try:
        if isinstance(spark_type, T.BooleanType):
            if kind == "bool" or (kind == "str" and text.lower() in ("true", "false")):
                return text.lower() == "true"
            raise bad()
        if isinstance(spark_type, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
            if kind not in ("num", "str"):
                raise bad()
            d = decimal.Decimal(text.strip())
            return int(d) if d == d.to_integral_value() else float(d)
        if isinstance(spark_type, (T.FloatType, T.DoubleType)):
            if kind not in ("num", "str"):
                raise bad()
            return float(text)
        if isinstance(spark_type, T.DecimalType):
            if kind not in ("num", "str"):
                raise bad()
            return decimal.Decimal(text.strip())
        if isinstance(spark_type, T.StringType):
            if kind != "str":
                raise bad(" (write text literals in single quotes)")
            return text
        if isinstance(spark_type, T.BinaryType):
            if kind != "str":
                raise bad()
            return text.encode()
        if isinstance(spark_type, T.DateType):
            if kind not in ("str", "date"):
                raise bad()
            return dt.date.fromisoformat(text.strip())
        if isinstance(spark_type, (T.TimestampType, T.TimestampNTZType)):
            if kind not in ("str", "date", "timestamp", "timestamp_ntz"):
                raise bad()
            t = dt.datetime.fromisoformat(text.strip().replace(" ", "T", 1))
            if isinstance(spark_type, T.TimestampNTZType):
                return t.replace(tzinfo=None) if kind != "timestamp" or t.tzinfo is None else \
                    t.astimezone(dt.timezone.utc).replace(tzinfo=None)
            if t.tzinfo is None:
                from zoneinfo import ZoneInfo

                t = t.replace(tzinfo=ZoneInfo(time_zone))
            return t.astimezone(dt.timezone.utc)
    except (ValueError, decimal.InvalidOperation) as exc:
        if "pqcore" in str(exc):
            raise
        raise bad(f": {exc}") from None
    raise ValueError(f"pqcore: option 'filter': column {column!r} of type {spark_type.simpleString()} "
                     "cannot be filtered by the filter option")
