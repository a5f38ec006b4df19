"""Checks and conversions of single writer option values (names to enums, flags, sizes).

Each raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for
one outside the allowed set, naming the option; the ``check_*`` functions take
``(option name, value)`` and are the ``check`` of the option table
(:mod:`parquet_core.options.specs`), which :mod:`parquet_core.options`
combines into the resolved option objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from parquet_core.constants import CompressionCodec, Encoding
from parquet_core.options.reader import is_flag, is_integer

__all__ = ["SortingColumn", "codec_of", "encoding_of", "per_column", "UNSET", "as_bool", "as_level",
           "as_choice", "as_positive", "page_version", "sorting_columns", "bloom_settings",
           "BLOOM_FPP", "BLOOM_MAX_BYTES", "check_flag", "check_optional_flag", "check_choice",
           "check_positive", "check_optional_positive", "check_codec", "check_level", "check_encoding",
           "check_mapping", "check_text", "check_sorting", "check_page_version", "check_key_values",
           "kv_strings"]

#: Bloom filter false-positive rate and largest bitset when ``bloom_filter_options`` names none.
BLOOM_FPP = 0.05
BLOOM_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class SortingColumn:
    """One entry of ``RowGroup.sorting_columns`` (column by leaf index)."""

    column_index: int
    descending: bool = False
    nulls_first: bool = False


_CODEC_NAMES = {
    "none": CompressionCodec.UNCOMPRESSED, "uncompressed": CompressionCodec.UNCOMPRESSED,
    "snappy": CompressionCodec.SNAPPY, "gzip": CompressionCodec.GZIP,
    "brotli": CompressionCodec.BROTLI, "zstd": CompressionCodec.ZSTD,
    "lz4": CompressionCodec.LZ4, "lz4_hadoop": CompressionCodec.LZ4,
    "lz4_raw": CompressionCodec.LZ4_RAW, "lzo": CompressionCodec.LZO,
}

_ENCODING_NAMES = {
    "plain": Encoding.PLAIN, "rle": Encoding.RLE,
    "delta_binary_packed": Encoding.DELTA_BINARY_PACKED,
    "delta_length_byte_array": Encoding.DELTA_LENGTH_BYTE_ARRAY,
    "delta_byte_array": Encoding.DELTA_BYTE_ARRAY,
    "byte_stream_split": Encoding.BYTE_STREAM_SPLIT,
    "alp": Encoding.ALP,
}

_BLOOM_KEYS = {"ndv": "bloom_filter_ndv", "fpp": "bloom_filter_fpp", "max_bytes": "bloom_filter_max_bytes"}


def bloom_settings(column: str, spec: Any) -> dict[str, Any]:
    """One entry of ``bloom_filter_options``: True/False, or ``{"ndv", "fpp", "max_bytes"}``."""
    if isinstance(spec, bool):
        return {"bloom_filter": spec}
    if not isinstance(spec, Mapping):
        raise TypeError(f"bloom_filter_options[{column!r}] must be a bool or a dict, got {spec!r}")
    unknown = sorted(set(spec) - set(_BLOOM_KEYS))
    if unknown:
        raise ValueError(f"bloom_filter_options[{column!r}]: unknown key(s) {unknown}; "
                         f"expected {sorted(_BLOOM_KEYS)}")
    out: dict[str, Any] = {"bloom_filter": True}
    if spec.get("ndv") is not None:
        out["bloom_filter_ndv"] = as_positive(f"bloom_filter_options[{column!r}]['ndv']", spec["ndv"])
    if "fpp" in spec:
        fpp = spec["fpp"]
        if isinstance(fpp, bool) or not isinstance(fpp, (int, float)) or not 0.0 < fpp < 1.0:
            raise ValueError(f"bloom_filter_options[{column!r}]['fpp'] must be between 0 and 1, got {fpp!r}")
        out["bloom_filter_fpp"] = float(fpp)
    if "max_bytes" in spec:
        mb = as_positive(f"bloom_filter_options[{column!r}]['max_bytes']", spec["max_bytes"])
        if mb < 32:
            raise ValueError(f"bloom_filter_options[{column!r}]['max_bytes'] must be at least 32 (one block)")
        out["bloom_filter_max_bytes"] = mb
    return out


def codec_of(value: Any) -> int:
    """Map a codec name (any case) or enum value to a ``CompressionCodec``."""
    if not (isinstance(value, str) or value is None or is_integer(value)):
        raise TypeError(f"compression must be a codec name, a CompressionCodec or None, got {value!r}")
    if isinstance(value, str):
        try:
            codec = _CODEC_NAMES[value.lower()]
        except KeyError:
            raise ValueError(f"unknown compression {value!r}; expected one of "
                             f"{sorted(_CODEC_NAMES)}") from None
    elif value is None:
        codec = CompressionCodec.UNCOMPRESSED
    else:
        try:
            codec = CompressionCodec(int(value))
        except ValueError:
            raise ValueError(f"unknown compression {value!r}; expected one of "
                             f"{sorted(_CODEC_NAMES)}") from None
    return codec


def encoding_of(value: Any) -> int:
    """Map an encoding name (any case) or enum value to an ``Encoding``."""
    if isinstance(value, str):
        key = value.lower()
        if key in ("rle_dictionary", "plain_dictionary"):
            raise ValueError("dictionary encoding is chosen with use_dictionary, not column_encoding")
        try:
            return _ENCODING_NAMES[key]
        except KeyError:
            raise ValueError(f"unknown encoding {value!r}; expected one of "
                             f"{sorted(_ENCODING_NAMES)}") from None
    if not is_integer(value):
        raise TypeError(f"column_encoding must be an encoding name or an Encoding, got {value!r}")
    try:
        enc = Encoding(int(value))
    except ValueError:
        raise ValueError(f"unknown encoding {value!r}; expected one of {sorted(_ENCODING_NAMES)}") from None
    if enc in (Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY, Encoding.BIT_PACKED):
        raise ValueError(f"{enc.name} cannot be requested as a column encoding")
    return enc


#: "no value given for the other columns" (a mapping without a ``None`` key)
UNSET: Any = object()


def per_column(value: Any, name: str, columns: list[str],
                boolean: bool = False) -> tuple[Any, dict[str, Any]]:
    """Split a per-column option into (value of unnamed columns, {column: value}).

    A mapping gives per-column values; its ``None`` key is the value of the
    columns it does not name (``UNSET`` without one: they keep the built-in
    default). For a boolean option, a list/tuple/set of column names switches
    it on for exactly those columns.
    """
    if isinstance(value, Mapping):
        per = dict(value)
        default = per.pop(None, UNSET)
        unknown = [c for c in per if c not in columns]
        if unknown:
            raise ValueError(f"{name}: no column named {unknown[0]!r} (columns: {columns})")
        return default, per
    if isinstance(value, (list, tuple, set, frozenset)):
        if not boolean:
            raise TypeError(f"{name} takes one value or a {{column: value}} mapping, "
                            f"not a {type(value).__name__}")
        unknown = [c for c in value if c not in columns]
        if unknown:
            raise ValueError(f"{name}: no column named {unknown[0]!r} (columns: {columns})")
        return False, {c: True for c in value}
    return value, {}


def as_bool(name: str) -> Callable[[Any], bool]:
    def convert(value: Any) -> bool:
        if not is_flag(value):
            raise TypeError(f"{name} must be True or False, got {value!r}")
        return bool(value)
    return convert


def as_level(value: Any) -> int | None:
    if value is None:
        return None
    if not is_integer(value):
        raise TypeError(f"compression_level must be an integer or None, got {value!r}")
    return int(value)


def as_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def as_positive(name: str, value: Any, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def page_version(value: Any) -> int:
    table = {"1.0": 1, "1": 1, 1: 1, "2.0": 2, "2": 2, 2: 2}
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"data_page_version must be '1.0' or '2.0', got {value!r}") from None


def sorting_columns(value: Any, columns: list[str]) -> tuple[SortingColumn, ...]:
    out = []
    for item in value or ():
        if isinstance(item, SortingColumn):
            out.append(item)
            continue
        if hasattr(item, "column_index") and hasattr(item, "descending"):  # pyarrow.parquet.SortingColumn
            out.append(SortingColumn(int(item.column_index), bool(item.descending),
                                     bool(item.nulls_first)))
            continue
        if isinstance(item, (str, int)):
            item = (item,)
        col, *rest = item
        if isinstance(col, str):
            if col not in columns:
                raise ValueError(f"sorting_columns: no column named {col!r}")
            col = columns.index(col)
        if not 0 <= int(col) < len(columns):
            raise ValueError(f"sorting_columns: column index {col} out of range")
        desc = rest[0] if rest else False
        if isinstance(desc, str):
            if desc not in ("ascending", "descending"):
                raise ValueError(f"sorting_columns: order must be 'ascending' or 'descending', got {desc!r}")
            desc = desc == "descending"
        nulls_first = bool(rest[1]) if len(rest) > 1 else False
        out.append(SortingColumn(int(col), bool(desc), nulls_first))
    return tuple(out)


# -- the checks of the option table: (option name, value) -> resolved value ---------------------------

def check_flag(name: str, value: Any) -> bool:
    """True or False."""
    return as_bool(name)(value)


def check_optional_flag(name: str, value: Any) -> bool | None:
    """True, False or None (None: decided from other options)."""
    return None if value is None else as_bool(name)(value)


def check_choice(*allowed: Any) -> Callable[[str, Any], Any]:
    """One of *allowed*."""
    return lambda name, value: as_choice(name, value, allowed)


def check_positive(name: str, value: Any) -> int:
    """A positive integer."""
    return as_positive(name, value)


def check_optional_positive(name: str, value: Any) -> int | None:
    """A positive integer or None."""
    return as_positive(name, value, allow_none=True)


def check_codec(name: str, value: Any) -> int:
    """A codec name (any case), a ``CompressionCodec`` or None (uncompressed)."""
    return codec_of(value)


def check_level(name: str, value: Any) -> int | None:
    """An integer or None."""
    return as_level(value)


def check_encoding(name: str, value: Any) -> int | None:
    """An encoding name, an ``Encoding`` or None (the type's default)."""
    return None if value is None else encoding_of(value)


def check_mapping(name: str, value: Any) -> Mapping[Any, Any] | None:
    """A mapping or None (its entries are checked when the columns are known)."""
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping or None, got {type(value).__name__}")
    return value


def check_text(name: str, value: Any) -> str | None:
    """A string or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, got {type(value).__name__}")
    return value


def check_sorting(name: str, value: Any) -> Any:
    """None or a sequence (its entries are checked against the columns by :func:`sorting_columns`)."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence of sorting columns, got {type(value).__name__}")
    return tuple(value)


def check_page_version(name: str, value: Any) -> int:
    """"1.0" or "2.0" (also 1, 2, "1", "2")."""
    return page_version(value)


def _kv_text(value: Any, what: str) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{what}: {bytes(value)[:40]!r} is not UTF-8 text; KeyValue entries are "
                             "strings (encode binary values, e.g. as base64)") from None
    return str(value)


def kv_strings(kv: Any, what: str) -> dict[str, str]:
    """Key/value metadata as text: bytes keys and values (as pyarrow's metadata gives them) are
    decoded as UTF-8, never written as their ``repr``; anything else goes through ``str``."""
    if not isinstance(kv, Mapping):
        raise TypeError(f"{what} must be a mapping, got {type(kv).__name__}")
    return {_kv_text(k, what): _kv_text(v, what) for k, v in kv.items()}


def check_key_values(name: str, value: Any) -> dict[str, str] | None:
    """None or a mapping of text (bytes are decoded as UTF-8)."""
    return None if value is None else kv_strings(value, name)
