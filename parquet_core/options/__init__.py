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

from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encodings import valid_encodings
from parquet_core.metadata.statistics import IEEE_754_TOTAL_ORDER, INT96_TIMESTAMP_ORDER, TYPE_ORDER
from parquet_core.options.specs import (
    PER_COLUMN, WRITER_DEFAULTS, WRITER_OPTIONS, BoolPerColumn, PerColumn, document_writer_options,
)
from parquet_core.options.values import (
    UNSET, SortingColumn, as_bool, as_choice, as_level, as_positive, bloom_settings, codec_of,
    encoding_of, page_version, per_column, sorting_columns,
)
from parquet_core.schema.file_types import FORMAT_VERSIONS
from parquet_core.schema.types import TypeId

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
    #: "type_defined" or "ieee754_total_order" (see ``float_column_order``)
    float_column_order: str = "type_defined"
    int96_statistics: bool = False
    #: encode a row group's column chunks in a thread pool (see ``use_threads``)
    use_threads: bool = True

    def column_order(self, desc: Any) -> str:
        """The ``ColumnOrder`` member a leaf's statistics follow in this file."""
        if desc.physical_type == PhysicalType.INT96:
            return INT96_TIMESTAMP_ORDER if self.int96_statistics else TYPE_ORDER
        floating = desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE) \
            or desc.data_type.id is TypeId.FLOAT16
        if floating and self.float_column_order == "ieee754_total_order":
            return IEEE_754_TOTAL_ORDER
        return TYPE_ORDER

    @property
    def use_deprecated_int96_timestamps(self) -> bool:
        """Timestamps are stored as INT96."""
        return self.format.use_deprecated_int96_timestamps

    def column(self, dotted_path: str) -> ColumnOptions:
        """Return the options of one leaf (its overrides, else the defaults)."""
        return self.columns.get(dotted_path, self.defaults)


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
    version = as_choice("version", args["version"], tuple(FORMAT_VERSIONS))
    flavor = as_choice("flavor", args["flavor"], (None, "spark"))
    int96 = args["use_deprecated_int96_timestamps"]
    int96 = flavor == "spark" if int96 is None else as_bool("use_deprecated_int96_timestamps")(int96)
    return FormatOptions(
        version=version, flavor=flavor, use_deprecated_int96_timestamps=int96,
        coerce_timestamps=as_choice("coerce_timestamps", args["coerce_timestamps"], (None, "ms", "us")),
        allow_truncated_timestamps=as_bool("allow_truncated_timestamps")(args["allow_truncated_timestamps"]),
        legacy_list_layout=as_bool("legacy_list_layout")(args["legacy_list_layout"]))


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
        return as_positive(name, WRITER_DEFAULTS[name] if value is None else value)  # type: ignore[no-any-return]

    kv = args["key_value_metadata"]
    page_index = as_bool("write_page_index")(args["write_page_index"])
    page_stats = args["write_page_statistics"]
    return WriterOptions(
        format=format_options(**kwargs),
        row_group_size=size("row_group_size"),
        row_group_bytes=as_positive("row_group_bytes", args["row_group_bytes"], allow_none=True),
        data_page_size=size("data_page_size"),
        data_page_row_count_limit=as_positive("data_page_row_count_limit", args["data_page_row_count_limit"]),
        dictionary_pagesize_limit=size("dictionary_pagesize_limit"),
        data_page_version=page_version(args["data_page_version"]),
        write_page_checksum=as_bool("write_page_checksum")(args["write_page_checksum"]),
        write_page_index=page_index,
        # page header statistics repeat what the column index holds: by default
        # they are written only when there is no page index (as parquet-java
        # and Arrow do); readers that use page statistics read the index
        write_page_statistics=not page_index if page_stats is None
        else as_bool("write_page_statistics")(page_stats),
        write_size_statistics=as_bool("write_size_statistics")(args["write_size_statistics"]),
        validate_utf8=as_bool("validate_utf8")(args["validate_utf8"]),
        created_by=args["created_by"],
        key_value_metadata=None if kv is None else kv_strings(kv, "key_value_metadata"),
        sorting_columns=sorting_columns(args["sorting_columns"], columns),
        defaults=base, columns=resolved,
        float_column_order=as_choice("float_column_order", args["float_column_order"],
                                     ("type_defined", "ieee754_total_order")),
        int96_statistics=as_bool("int96_statistics")(args["int96_statistics"]),
        use_threads=as_bool("use_threads")(args["use_threads"]))


#: per-column option -> (ColumnOptions attribute, conversion, boolean option)
_SPREAD: dict[str, tuple[str, Callable[[Any], Any], bool]] = {
    "compression": ("compression", codec_of, False),
    "compression_level": ("compression_level", as_level, False),
    "use_dictionary": ("use_dictionary", as_bool("use_dictionary"), True),
    "column_encoding": ("encoding", lambda v: None if v is None else encoding_of(v), False),
    "write_statistics": ("write_statistics", as_bool("write_statistics"), True),
    "statistics_truncate_length": ("statistics_truncate_length",
                                   lambda v: as_positive("statistics_truncate_length", v, allow_none=True), False),
    "column_index_truncate_length": ("column_index_truncate_length",
                                     lambda v: as_positive("column_index_truncate_length", v, allow_none=True),
                                     False),
}


def _column_options(args: Mapping[str, Any], columns: list[str], ptypes: Mapping[str, int]
                    ) -> tuple[ColumnOptions, dict[str, ColumnOptions]]:
    """The default ColumnOptions and the leaves' own, from the per-column options in *args*."""
    defaults: dict[str, Any] = {}
    overrides: dict[str, dict[str, Any]] = {c: {} for c in columns}
    for option, (attr, convert, boolean) in _SPREAD.items():
        default, per = per_column(args[option], option, columns, boolean)
        defaults[attr] = convert(WRITER_DEFAULTS[option] if default is UNSET else default)
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
    default, per = per_column(value, "use_byte_stream_split", columns, boolean=True)
    convert = as_bool("use_byte_stream_split")
    default = False if default is UNSET else convert(default)
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
    default, per = per_column(bloom, "bloom_filter_options", columns)
    for col in columns:
        if col in per:
            settings = bloom_settings(col, per[col])
            if settings["bloom_filter"] and ptypes.get(col) == PhysicalType.BOOLEAN:
                raise ValueError(f"column {col}: Bloom filters are not defined for BOOLEAN columns")
        elif default is not UNSET and ptypes.get(col) != PhysicalType.BOOLEAN:
            settings = bloom_settings(col, default)   # booleans have none, so the default skips them
        else:
            continue
        overrides[col].update(settings)
    ckv = args["column_key_value_metadata"]
    if ckv is None:
        ckv = {}
    if not isinstance(ckv, Mapping):
        raise TypeError(f"column_key_value_metadata must be a dict of column -> dict, got {ckv!r}")
    default, per = per_column(ckv, "column_key_value_metadata", columns)
    for col in columns:
        kv = per.get(col, None if default is UNSET else default)
        if kv is not None:
            overrides[col]["key_value_metadata"] = kv_strings(kv, f"column_key_value_metadata[{col!r}]")


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


def _fields(opts: ColumnOptions) -> dict[str, Any]:
    return {name: getattr(opts, name) for name in ColumnOptions.__dataclass_fields__}
