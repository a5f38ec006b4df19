"""Tunables passed explicitly through the layers, as frozen dataclasses.

Reader settings live in :class:`ReaderOptions`.  Writer settings arrive as
keyword arguments named like ``pyarrow.parquet.write_table``'s (so users can
switch without relearning), each listed once with its default in
:mod:`parquet_core.options.specs`.  :func:`format_options` validates the ones
that shape the file's schema; :func:`writer_options` validates the rest once
and resolves every per-column value into one :class:`ColumnOptions` per leaf,
so the lower layers only ever see plain, already-checked values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from parquet_core.constants import CompressionCodec, Encoding, PhysicalType
from parquet_core.encodings import valid_encodings
from parquet_core.options.specs import (
    PER_COLUMN, WRITER_DEFAULTS, WRITER_OPTIONS, BoolPerColumn, PerColumn, document_writer_options,
)
from parquet_core.schema.file_types import FORMAT_VERSIONS

__all__ = ["ReaderOptions", "ColumnOptions", "FormatOptions", "WriterOptions", "SortingColumn",
           "format_options", "writer_options", "codec_of", "encoding_of", "WRITER_DEFAULTS",
           "WRITER_OPTIONS", "PER_COLUMN", "PerColumn", "BoolPerColumn", "document_writer_options"]


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
    """Resolved settings of one leaf column (defaults: :data:`WRITER_DEFAULTS`)."""

    compression: int
    compression_level: int | None
    use_dictionary: bool
    #: value encoding for data pages that are not dictionary encoded (None = type default)
    encoding: int | None
    write_statistics: bool
    statistics_truncate_length: int | None
    column_index_truncate_length: int | None
    key_value_metadata: Mapping[str, str] | None = None
    #: split-block Bloom filter per column chunk (see ``bloom_filter_options``)
    bloom_filter: bool = False
    #: distinct values to size the filter for (None: each chunk's exact count)
    bloom_filter_ndv: int | None = None
    bloom_filter_fpp: float = 0.05
    bloom_filter_max_bytes: int = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """The settings that decide the file's schema (names, physical and logical types)."""

    version: str
    flavor: str | None
    #: resolved: ``flavor="spark"`` turns it on unless it was given as False
    use_deprecated_int96_timestamps: bool
    coerce_timestamps: str | None
    allow_truncated_timestamps: bool
    legacy_list_layout: bool

    @property
    def format_version(self) -> int:
        """``FileMetaData.version``: 1 for "1.0", else 2 (as pyarrow writes)."""
        return FORMAT_VERSIONS[self.version]


@dataclass(frozen=True, slots=True)
class WriterOptions:
    """File-wide writer settings; per-column ones are in :attr:`columns`."""

    format: FormatOptions
    row_group_size: int
    row_group_bytes: int | None
    data_page_size: int
    data_page_row_count_limit: int
    dictionary_pagesize_limit: int
    data_page_version: int
    write_page_checksum: bool
    write_page_index: bool
    write_page_statistics: bool
    write_size_statistics: bool
    validate_utf8: bool
    created_by: str | None
    key_value_metadata: Mapping[str, str] | None
    sorting_columns: tuple[SortingColumn, ...]
    defaults: ColumnOptions
    columns: Mapping[str, ColumnOptions] = field(default_factory=dict)

    @property
    def use_deprecated_int96_timestamps(self) -> bool:
        """Timestamps are stored as INT96."""
        return self.format.use_deprecated_int96_timestamps

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


#: "no value given for the other columns" (a mapping without a ``None`` key)
_UNSET: Any = object()


def _per_column(value: Any, name: str, columns: list[str],
                boolean: bool = False) -> tuple[Any, dict[str, Any]]:
    """Split a per-column option into (value of unnamed columns, {column: value}).

    A mapping gives per-column values; its ``None`` key is the value of the
    columns it does not name (``_UNSET`` without one: they keep the built-in
    default). For a boolean option, a list/tuple/set of column names switches
    it on for exactly those columns.
    """
    if isinstance(value, Mapping):
        per = dict(value)
        default = per.pop(None, _UNSET)
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


def _bool(name: str) -> Callable[[Any], bool]:
    def convert(value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r}")
        return bool(value)
    return convert


def _level(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"compression_level must be an integer or None, got {value!r}")
    return int(value)


def _choice(name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if not any(value is a or (isinstance(value, str) and value == a) for a in allowed):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def format_options(**kwargs: Any) -> FormatOptions:
    """Validate the options that decide the file's schema (others are ignored here).

    Raises
    ------
    ValueError
        For a ``version``, ``flavor`` or ``coerce_timestamps`` outside the
        allowed values (named in the message).
    TypeError
        For a non-boolean flag.
    """
    args = {**WRITER_DEFAULTS, **kwargs}
    version = _choice("version", args["version"], tuple(FORMAT_VERSIONS))
    flavor = _choice("flavor", args["flavor"], (None, "spark"))
    int96 = args["use_deprecated_int96_timestamps"]
    int96 = flavor == "spark" if int96 is None else _bool("use_deprecated_int96_timestamps")(int96)
    return FormatOptions(
        version=version, flavor=flavor, use_deprecated_int96_timestamps=int96,
        coerce_timestamps=_choice("coerce_timestamps", args["coerce_timestamps"], (None, "ms", "us")),
        allow_truncated_timestamps=_bool("allow_truncated_timestamps")(args["allow_truncated_timestamps"]),
        legacy_list_layout=_bool("legacy_list_layout")(args["legacy_list_layout"]))


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
        Dotted paths of the leaf columns (as the file names them), in schema order.
    physical_types:
        ``{dotted path: PhysicalType}``, used to pick type defaults (booleans
        are never dictionary encoded; ``use_byte_stream_split`` applies to the
        types BYTE_STREAM_SPLIT supports).
    **kwargs:
        The options of :data:`WRITER_OPTIONS`; missing ones take their
        default, unknown names raise TypeError.
    """
    unknown = sorted(set(kwargs) - set(WRITER_DEFAULTS))
    if unknown:
        raise TypeError(f"unknown writer option(s): {', '.join(unknown)}")
    args = {**WRITER_DEFAULTS, **kwargs}
    ptypes = dict(physical_types or {})
    base, resolved = _column_options(args, columns, ptypes)

    def size(name: str) -> int:  # pyarrow's None means "the default" for these
        value = args[name]
        return _positive(name, WRITER_DEFAULTS[name] if value is None else value)  # type: ignore[no-any-return]

    kv = args["key_value_metadata"]
    page_index = _bool("write_page_index")(args["write_page_index"])
    page_stats = args["write_page_statistics"]
    return WriterOptions(
        format=format_options(**kwargs),
        row_group_size=size("row_group_size"),
        row_group_bytes=_positive("row_group_bytes", args["row_group_bytes"], allow_none=True),
        data_page_size=size("data_page_size"),
        data_page_row_count_limit=_positive("data_page_row_count_limit", args["data_page_row_count_limit"]),
        dictionary_pagesize_limit=size("dictionary_pagesize_limit"),
        data_page_version=_page_version(args["data_page_version"]),
        write_page_checksum=_bool("write_page_checksum")(args["write_page_checksum"]),
        write_page_index=page_index,
        # page header statistics repeat what the column index holds: by default
        # they are written only when there is no page index (as parquet-java
        # and Arrow do); readers that use page statistics read the index
        write_page_statistics=not page_index if page_stats is None
        else _bool("write_page_statistics")(page_stats),
        write_size_statistics=_bool("write_size_statistics")(args["write_size_statistics"]),
        validate_utf8=_bool("validate_utf8")(args["validate_utf8"]),
        created_by=args["created_by"],
        key_value_metadata=None if kv is None else {str(k): str(v) for k, v in kv.items()},
        sorting_columns=_sorting(args["sorting_columns"], columns),
        defaults=base, columns=resolved)


#: per-column option -> (ColumnOptions attribute, conversion, boolean option)
_SPREAD: dict[str, tuple[str, Callable[[Any], Any], bool]] = {
    "compression": ("compression", codec_of, False),
    "compression_level": ("compression_level", _level, False),
    "use_dictionary": ("use_dictionary", _bool("use_dictionary"), True),
    "column_encoding": ("encoding", lambda v: None if v is None else encoding_of(v), False),
    "write_statistics": ("write_statistics", _bool("write_statistics"), True),
    "statistics_truncate_length": ("statistics_truncate_length",
                                   lambda v: _positive("statistics_truncate_length", v, allow_none=True), False),
    "column_index_truncate_length": ("column_index_truncate_length",
                                     lambda v: _positive("column_index_truncate_length", v, allow_none=True),
                                     False),
}


def _column_options(args: Mapping[str, Any], columns: list[str], ptypes: Mapping[str, int]
                    ) -> tuple[ColumnOptions, dict[str, ColumnOptions]]:
    """The default ColumnOptions and the leaves' own, from the per-column options in *args*."""
    defaults: dict[str, Any] = {}
    overrides: dict[str, dict[str, Any]] = {c: {} for c in columns}
    for option, (attr, convert, boolean) in _SPREAD.items():
        default, per = _per_column(args[option], option, columns, boolean)
        defaults[attr] = convert(WRITER_DEFAULTS[option] if default is _UNSET else default)
        for col, v in per.items():
            overrides[col][attr] = convert(v)
    # an explicit value encoding means "no dictionary", as in pyarrow
    for col in columns:
        if overrides[col].get("encoding", defaults["encoding"]) is not None:
            overrides[col]["use_dictionary"] = False
    _byte_stream_split(args["use_byte_stream_split"], columns, ptypes, overrides)
    _column_extras(args, columns, ptypes, overrides)

    base = ColumnOptions(**defaults)
    resolved = {}
    for col, ov in overrides.items():
        if ptypes.get(col) == PhysicalType.BOOLEAN:
            ov["use_dictionary"] = False
        if ov:
            resolved[col] = ColumnOptions(**{**_fields(base), **ov})
        # refuse an encoding the column's type cannot take now, before any file exists
        enc = resolved.get(col, base).encoding
        if enc is not None and col in ptypes and enc not in valid_encodings(ptypes[col]):
            raise ValueError(f"column {col}: encoding {Encoding(enc).name} cannot encode physical type "
                             f"{PhysicalType(ptypes[col]).name}")
    return base, resolved


def _byte_stream_split(value: Any, columns: list[str], ptypes: Mapping[str, int],
                       overrides: dict[str, dict[str, Any]]) -> None:
    """``use_byte_stream_split``: on by default for float/double, or for the columns named."""
    default, per = _per_column(value, "use_byte_stream_split", columns, boolean=True)
    convert = _bool("use_byte_stream_split")
    default = False if default is _UNSET else convert(default)
    bss_types = (PhysicalType.FLOAT, PhysicalType.DOUBLE)
    for col in columns:
        on = convert(per[col]) if col in per else default
        if on and (col in per or ptypes.get(col) in bss_types):
            overrides[col].setdefault("encoding", Encoding.BYTE_STREAM_SPLIT)
            overrides[col].setdefault("use_dictionary", False)


def _column_extras(args: Mapping[str, Any], columns: list[str], ptypes: Mapping[str, int],
                   overrides: dict[str, dict[str, Any]]) -> None:
    """``bloom_filter_options`` and ``column_key_value_metadata`` (``None`` key: unnamed columns)."""
    bloom = args["bloom_filter_options"]
    if bloom is None:
        bloom = {}
    if not isinstance(bloom, Mapping):
        raise TypeError(f"bloom_filter_options must be a dict of column -> bool or dict, got {bloom!r}")
    default, per = _per_column(bloom, "bloom_filter_options", columns)
    for col in columns:
        if col in per:
            settings = _bloom_settings(col, per[col])
            if settings["bloom_filter"] and ptypes.get(col) == PhysicalType.BOOLEAN:
                raise ValueError(f"column {col}: Bloom filters are not defined for BOOLEAN columns")
        elif default is not _UNSET and ptypes.get(col) != PhysicalType.BOOLEAN:
            settings = _bloom_settings(col, default)   # booleans have none, so the default skips them
        else:
            continue
        overrides[col].update(settings)
    ckv = args["column_key_value_metadata"]
    if ckv is None:
        ckv = {}
    if not isinstance(ckv, Mapping):
        raise TypeError(f"column_key_value_metadata must be a dict of column -> dict, got {ckv!r}")
    default, per = _per_column(ckv, "column_key_value_metadata", columns)
    for col in columns:
        kv = per.get(col, None if default is _UNSET else default)
        if kv is not None:
            overrides[col]["key_value_metadata"] = {str(k): str(v) for k, v in kv.items()}


def _fields(opts: ColumnOptions) -> dict[str, Any]:
    return {name: getattr(opts, name) for name in ColumnOptions.__dataclass_fields__}
