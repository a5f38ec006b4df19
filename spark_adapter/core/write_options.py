"""``.option(...)`` strings of ``df.write.format("pqcore")`` -> ``pc.ParquetWriter`` keyword arguments.

Spark lower-cases option names and turns every value into a string, so each
writer option is matched by its name without case and underscores
(``row_group_size``, ``rowGroupSize`` and ``ROWGROUPSIZE`` are one option)
and its value is parsed to the type the engine wants.  Options that take a
value per column accept a JSON object (``{"a": "zstd", "b": "none"}``);
boolean ones also a JSON list of column names.  Unknown names are refused
with an error naming the option, before any task runs.

Options of the adapter itself: ``path``, ``partitionBy`` (comma-separated or
a JSON list; Spark rejects ``DataFrameWriter.partitionBy`` for Python data
sources) and ``timeZone`` (zone of timestamp values in folder names; by
default the zone of Spark's batches, i.e. its session time zone).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from spark_adapter.core.option_values import SPARK_TABLE_PROPERTIES, parse_bool

__all__ = ["ADAPTER_OPTIONS", "NOT_SPARK_OPTIONS", "WRITER_OPTIONS", "parse_writer_options",
           "parse_partition_by"]


def _json(name: str, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"pqcore: option {name!r}: not valid JSON: {text!r} ({exc})") from None


def _bool(name: str, text: str) -> bool:
    return parse_bool(text, f"pqcore: option {name!r}")


def _int(name: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"pqcore: option {name!r} must be an integer, got {text!r}") from None


def _int_or_none(name: str, text: str) -> int | None:
    return None if text.strip().lower() in ("none", "null") else _int(name, text)


def _per_column(scalar: Callable[[str, str], Any]) -> Callable[[str, str], Any]:
    """A scalar option that also takes a JSON object ``{column: value}`` (or a list of columns)."""

    def parse(name: str, text: str) -> Any:
        if text.lstrip().startswith(("{", "[")):
            value = _json(name, text)
            if isinstance(value, dict):
                return {str(k): (v if not isinstance(v, str) else scalar(name, v)) for k, v in value.items()}
            if isinstance(value, list) and scalar is _bool:
                return [str(c) for c in value]
            raise ValueError(f"pqcore: option {name!r} takes a value or a JSON object {{column: value}}")
        return scalar(name, text)

    return parse


def _text(name: str, text: str) -> str:
    return text


def _text_or_none(name: str, text: str) -> str | None:
    return None if text.strip().lower() in ("none", "null", "") else text


def _json_object(name: str, text: str) -> dict:
    value = _json(name, text)
    if not isinstance(value, dict):
        raise ValueError(f"pqcore: option {name!r} must be a JSON object")
    return value


def _json_list(name: str, text: str) -> list:
    value = _json(name, text)
    if not isinstance(value, list):
        raise ValueError(f"pqcore: option {name!r} must be a JSON list")
    return [tuple(v) if isinstance(v, list) else v for v in value]


#: parquet_core writer option -> parser of its Spark option string (see README "Writing")
WRITER_OPTIONS: dict[str, Callable[[str, str], Any]] = {
    "compression": _per_column(_text),
    "compression_level": _per_column(_int_or_none),
    "use_dictionary": _per_column(_bool),
    "column_encoding": _per_column(_text),
    "use_byte_stream_split": _per_column(_bool),
    "data_page_version": _text,
    "data_page_size": _int,
    "data_page_row_count_limit": _int,
    "dictionary_pagesize_limit": _int,
    "row_group_size": _int,
    "row_group_bytes": _int_or_none,
    "write_statistics": _per_column(_bool),
    "write_page_checksum": _bool,
    "write_page_index": _bool,
    "write_page_statistics": _bool,
    "write_size_statistics": _bool,
    "statistics_truncate_length": _per_column(_int_or_none),
    "column_index_truncate_length": _per_column(_int_or_none),
    "use_deprecated_int96_timestamps": _bool,
    "validate_utf8": _bool,
    "created_by": _text,
    "key_value_metadata": _json_object,
    "column_key_value_metadata": _json_object,
    "sorting_columns": _json_list,
    "bloom_filter_options": _json_object,    # {"col": true | {"ndv": n, "fpp": p, "max_bytes": m}}
    "version": _text,
    "flavor": _text_or_none,
    "coerce_timestamps": _text_or_none,
    "allow_truncated_timestamps": _bool,
    "store_schema": _bool,
    "legacy_list_layout": _bool,
    "float_column_order": _text,
    "int96_statistics": _bool,
    "use_compliant_nested_type": _bool,
    "write_time_adjusted_to_utc": _bool,
    "compatible_with": _text_or_none,   # "spark-4.0", "duckdb"...: see docs/compat-notes.md
    "use_threads": _bool,
}

#: engine writer options deliberately not taken from ``.option(...)`` strings
NOT_SPARK_OPTIONS = frozenset({"encryption"})   # built from parquet.encryption.* options

#: options the adapter reads itself (not passed to the engine)
ADAPTER_OPTIONS = ("path", "partitionBy", "timeZone")

_BY_KEY = {k.replace("_", ""): k for k in WRITER_OPTIONS}
_ADAPTER_KEYS = {k.lower() for k in ADAPTER_OPTIONS}


def parse_writer_options(options: Mapping[str, str]) -> dict[str, Any]:
    """The engine keyword arguments of Spark write *options*; unknown names raise ValueError."""
    out: dict[str, Any] = {}
    for key, text in options.items():
        norm = key.lower().replace("_", "")
        if key.lower() in _ADAPTER_KEYS or key.lower().startswith("parquet.encryption.") \
                or key.lower() in SPARK_TABLE_PROPERTIES:
            continue   # adapter options (encryption: spark_adapter.core.crypto_options), Spark's own
        name = _BY_KEY.get(norm)
        if name is None:
            raise ValueError(
                f"pqcore: unknown write option {key!r}; known options: "
                f"{', '.join(sorted(WRITER_OPTIONS) + list(ADAPTER_OPTIONS))}")
        out[name] = WRITER_OPTIONS[name](key, str(text))
    return out


def parse_partition_by(options: Mapping[str, str]) -> list[str]:
    """The ``partitionBy`` option: ``"a,b"`` or ``'["a", "b"]'``."""
    text = options.get("partitionby") or options.get("partitionBy") or ""
    text = text.strip()
    if not text:
        return []
    cols = _json("partitionBy", text) if text.startswith("[") else text.split(",")
    cols = [str(c).strip() for c in cols]
    if any(not c for c in cols) or len(set(cols)) != len(cols):
        raise ValueError(f"pqcore: option 'partitionBy' must name distinct columns, got {text!r}")
    return cols
