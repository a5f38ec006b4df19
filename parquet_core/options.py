"""Tunables passed explicitly through the layers, as frozen dataclasses.

Reader settings live in :class:`ReaderOptions`.  Writer settings arrive as
keyword arguments named like ``pyarrow.parquet.write_table``'s (so users can
switch without relearning); :func:`writer_options` validates them once and
resolves every per-column override into one :class:`ColumnOptions` per leaf,
so the lower layers only ever see plain, already-checked values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from parquet_core.constants import CompressionCodec, Encoding, PhysicalType
from parquet_core.encodings import valid_encodings

__all__ = ["ReaderOptions", "ColumnOptions", "WriterOptions", "SortingColumn", "writer_options"]


@dataclass(frozen=True, slots=True)
class ReaderOptions:
    """How files are read.

    Parameters
    ----------
    page_checksum_verification:
        Verify each page's CRC-32 when the writer stored one (default True;
        the name matches ``pyarrow.parquet``'s option, our default is safer).
    """

    page_checksum_verification: bool = True


@dataclass(frozen=True, slots=True)
class SortingColumn:
    """One entry of ``RowGroup.sorting_columns`` (column by leaf index)."""

    column_index: int
    descending: bool = False
    nulls_first: bool = False


@dataclass(frozen=True, slots=True)
class ColumnOptions:
    """Resolved settings of one leaf column."""

    compression: int = CompressionCodec.SNAPPY
    compression_level: int | None = None
    use_dictionary: bool = True
    #: value encoding for data pages that are not dictionary encoded (None = type default)
    encoding: int | None = None
    write_statistics: bool = True
    statistics_truncate_length: int | None = 64
    column_index_truncate_length: int | None = 64
    key_value_metadata: Mapping[str, str] | None = None
    #: split-block Bloom filter per column chunk (see ``bloom_filter_options``)
    bloom_filter: bool = False
    #: distinct values to size the filter for (None: each chunk's exact count)
    bloom_filter_ndv: int | None = None
    bloom_filter_fpp: float = 0.05
    bloom_filter_max_bytes: int = 1024 * 1024


@dataclass(frozen=True, slots=True)
class WriterOptions:
    """File-wide writer settings; per-column ones are in :attr:`columns`."""

    row_group_size: int = 1024 * 1024
    row_group_bytes: int | None = 128 * 1024 * 1024
    data_page_size: int = 1024 * 1024
    data_page_row_count_limit: int = 20_000
    dictionary_pagesize_limit: int = 1024 * 1024
    data_page_version: int = 1
    write_page_checksum: bool = False
    write_page_index: bool = True
    write_page_statistics: bool = True
    write_size_statistics: bool = True
    use_deprecated_int96_timestamps: bool = False
    validate_utf8: bool = True
    created_by: str | None = None
    key_value_metadata: Mapping[str, str] | None = None
    sorting_columns: tuple[SortingColumn, ...] = ()
    defaults: ColumnOptions = field(default_factory=ColumnOptions)
    columns: Mapping[str, ColumnOptions] = field(default_factory=dict)

    def column(self, dotted_path: str) -> ColumnOptions:
        """Return the options of one leaf (its overrides, else the defaults)."""
        return self.columns.get(dotted_path, self.defaults)


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
}

_KNOWN = frozenset([
    "compression", "compression_level", "use_dictionary", "column_encoding",
    "use_byte_stream_split", "data_page_version", "data_page_size", "data_page_row_count_limit",
    "dictionary_pagesize_limit", "row_group_size", "row_group_bytes", "write_statistics",
    "write_page_checksum", "write_page_index", "write_page_statistics", "write_size_statistics",
    "statistics_truncate_length", "column_index_truncate_length", "use_deprecated_int96_timestamps",
    "validate_utf8", "created_by", "key_value_metadata", "column_key_value_metadata",
    "sorting_columns", "version", "bloom_filter_options",
])
_BLOOM_KEYS = {"ndv": "bloom_filter_ndv", "fpp": "bloom_filter_fpp", "max_bytes": "bloom_filter_max_bytes"}


def _bloom_settings(column: str, spec: Any) -> dict[str, Any]:
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
        out["bloom_filter_ndv"] = _positive(f"bloom_filter_options[{column!r}]['ndv']", spec["ndv"])
    if "fpp" in spec:
        fpp = spec["fpp"]
        if isinstance(fpp, bool) or not isinstance(fpp, (int, float)) or not 0.0 < fpp < 1.0:
            raise ValueError(f"bloom_filter_options[{column!r}]['fpp'] must be between 0 and 1, got {fpp!r}")
        out["bloom_filter_fpp"] = float(fpp)
    if "max_bytes" in spec:
        mb = _positive(f"bloom_filter_options[{column!r}]['max_bytes']", spec["max_bytes"])
        if mb < 32:
            raise ValueError(f"bloom_filter_options[{column!r}]['max_bytes'] must be at least 32 (one block)")
        out["bloom_filter_max_bytes"] = mb
    return out


def codec_of(value: Any) -> int:
    """Map a codec name (any case) or enum value to a ``CompressionCodec``."""
    if isinstance(value, str):
        try:
            codec = _CODEC_NAMES[value.lower()]
        except KeyError:
            raise ValueError(f"unknown compression {value!r}; expected one of "
                             f"{sorted(_CODEC_NAMES)}") from None
    elif value is None:
        codec = CompressionCodec.UNCOMPRESSED
    else:
        codec = CompressionCodec(int(value))
    if codec == CompressionCodec.LZO:
        raise ValueError("LZO compression cannot be written (no Python backend)")
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
    enc = Encoding(int(value))
    if enc in (Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY, Encoding.BIT_PACKED):
        raise ValueError(f"{enc.name} cannot be requested as a column encoding")
    return enc


def _per_column(value: Any, name: str, columns: list[str]) -> tuple[Any, dict[str, Any]]:
    """Split an option into (default, {column: override}).

    A mapping gives per-column values (others keep the built-in default); a
    list/tuple/set of column names switches a boolean option on for exactly
    those columns.
    """
    if isinstance(value, Mapping):
        unknown = [c for c in value if c not in columns]
        if unknown:
            raise ValueError(f"{name}: no column named {unknown[0]!r} (columns: {columns})")
        return None, dict(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        unknown = [c for c in value if c not in columns]
        if unknown:
            raise ValueError(f"{name}: no column named {unknown[0]!r} (columns: {columns})")
        return False, {c: True for c in value}
    return value, {}


def _positive(name: str, value: Any, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _page_version(value: Any) -> int:
    table = {"1.0": 1, "1": 1, 1: 1, "2.0": 2, "2": 2, 2: 2}
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"data_page_version must be '1.0' or '2.0', got {value!r}") from None


def _sorting(value: Any, columns: list[str]) -> tuple[SortingColumn, ...]:
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


def writer_options(columns: list[str], physical_types: Mapping[str, int] | None = None,
                   **kwargs: Any) -> WriterOptions:
    """Validate writer keyword arguments and resolve them per leaf column.

    Parameters
    ----------
    columns:
        Dotted paths of the leaf columns, in schema order.
    physical_types:
        ``{dotted path: PhysicalType}``, used to pick type defaults (booleans
        are never dictionary encoded; ``use_byte_stream_split`` applies to the
        types BYTE_STREAM_SPLIT supports).
    **kwargs:
        The options listed in the README ("Writing"); unknown names raise.
    """
    unknown = sorted(set(kwargs) - _KNOWN)
    if unknown:
        raise TypeError(f"unknown writer option(s): {', '.join(unknown)}")
    ptypes = dict(physical_types or {})

    defaults: dict[str, Any] = {}
    overrides: dict[str, dict[str, Any]] = {c: {} for c in columns}

    def spread(option: str, attr: str, convert: Any) -> None:
        if option not in kwargs:
            return
        default, per = _per_column(kwargs[option], option, columns)
        if default is not None:
            defaults[attr] = convert(default)
        for col, v in per.items():
            overrides[col][attr] = convert(v)

    spread("compression", "compression", codec_of)
    spread("compression_level", "compression_level",
           lambda v: None if v is None else int(v))
    spread("use_dictionary", "use_dictionary", bool)
    spread("column_encoding", "encoding", encoding_of)
    spread("write_statistics", "write_statistics", bool)
    spread("statistics_truncate_length", "statistics_truncate_length",
           lambda v: _positive("statistics_truncate_length", v, allow_none=True))
    spread("column_index_truncate_length", "column_index_truncate_length",
           lambda v: _positive("column_index_truncate_length", v, allow_none=True))
    if "use_byte_stream_split" in kwargs:
        default, per = _per_column(kwargs["use_byte_stream_split"], "use_byte_stream_split", columns)
        bss_types = (PhysicalType.FLOAT, PhysicalType.DOUBLE)
        for col in columns:
            on = per.get(col, default)
            if on and (col in per or ptypes.get(col) in bss_types):
                overrides[col].setdefault("encoding", Encoding.BYTE_STREAM_SPLIT)
                if col in per or default:
                    overrides[col].setdefault("use_dictionary", False)
    if "column_encoding" in kwargs:
        # an explicit value encoding means "no dictionary", as in pyarrow
        default, per = _per_column(kwargs["column_encoding"], "column_encoding", columns)
        for col in columns:
            if col in per or default is not None:
                overrides[col]["use_dictionary"] = False
    bloom = kwargs.get("bloom_filter_options") or {}
    if not isinstance(bloom, Mapping):
        raise TypeError(f"bloom_filter_options must be a dict of column -> bool or dict, got {bloom!r}")
    for col, spec in bloom.items():
        if col not in overrides:
            raise ValueError(f"bloom_filter_options: no column named {col!r}")
        settings = _bloom_settings(col, spec)
        if settings["bloom_filter"] and ptypes.get(col) == PhysicalType.BOOLEAN:
            raise ValueError(f"column {col}: Bloom filters are not defined for BOOLEAN columns")
        overrides[col].update(settings)
    ckv = kwargs.get("column_key_value_metadata") or {}
    for col, kv in ckv.items():
        if col not in overrides:
            raise ValueError(f"column_key_value_metadata: no column named {col!r}")
        overrides[col]["key_value_metadata"] = {str(k): str(v) for k, v in kv.items()}

    base = ColumnOptions(**defaults)
    resolved = {}
    for col, ov in overrides.items():
        if ptypes.get(col) == PhysicalType.BOOLEAN:
            ov.setdefault("use_dictionary", False)
            ov["use_dictionary"] = False
        if ov:
            resolved[col] = ColumnOptions(**{**_fields(base), **ov})
        # refuse an encoding the column's type cannot take now, before any file exists
        enc = resolved.get(col, base).encoding
        if enc is not None and col in ptypes and enc not in valid_encodings(ptypes[col]):
            raise ValueError(f"column {col}: encoding {Encoding(enc).name} cannot encode physical type "
                             f"{PhysicalType(ptypes[col]).name}")

    kv = kwargs.get("key_value_metadata")
    opts = WriterOptions(
        row_group_size=_positive("row_group_size", kwargs.get("row_group_size", 1024 * 1024)),
        row_group_bytes=_positive("row_group_bytes", kwargs.get("row_group_bytes", 128 << 20),
                                  allow_none=True),
        data_page_size=_positive("data_page_size", kwargs.get("data_page_size", 1 << 20)),
        data_page_row_count_limit=_positive(
            "data_page_row_count_limit", kwargs.get("data_page_row_count_limit", 20_000)),
        dictionary_pagesize_limit=_positive(
            "dictionary_pagesize_limit", kwargs.get("dictionary_pagesize_limit", 1 << 20)),
        data_page_version=_page_version(kwargs.get("data_page_version", "1.0")),
        write_page_checksum=bool(kwargs.get("write_page_checksum", False)),
        write_page_index=bool(kwargs.get("write_page_index", True)),
        # page header statistics repeat what the column index holds: by default
        # they are written only when there is no page index (as parquet-java
        # and Arrow do); readers that use page statistics read the index
        write_page_statistics=bool(kwargs.get("write_page_statistics",
                                              not kwargs.get("write_page_index", True))),
        write_size_statistics=bool(kwargs.get("write_size_statistics", True)),
        use_deprecated_int96_timestamps=bool(kwargs.get("use_deprecated_int96_timestamps", False)),
        validate_utf8=bool(kwargs.get("validate_utf8", True)),
        created_by=kwargs.get("created_by"),
        key_value_metadata=None if kv is None else {str(k): str(v) for k, v in kv.items()},
        sorting_columns=_sorting(kwargs.get("sorting_columns"), columns),
        defaults=base, columns=resolved)
    return opts


def _fields(opts: ColumnOptions) -> dict[str, Any]:
    return {name: getattr(opts, name) for name in ColumnOptions.__dataclass_fields__}
