"""Tunables passed explicitly through the layers, as frozen dataclasses.

Reader settings live in one :class:`ReaderOptions` (:mod:`parquet_core.options.reader`),
each field declared once with its default, check and documentation.  Writer settings
arrive as keyword arguments named like ``pyarrow.parquet.write_table``'s (so users can
switch without relearning), each listed once with its default, check and documentation
in :mod:`parquet_core.options.specs`.  :func:`writer_options` resolves them in steps:

* :func:`writer_arguments`   unknown names refused, the table's defaults filled in
* :func:`format_options`     the options that decide the file's schema (FormatOptions)
* :func:`_file_wide`         every other file-wide option through its check
* :func:`_column_options`    per-column options spread over the leaves, then the
                             options resolved by rules of their own (byte stream
                             split, Bloom filters, column key/values) and the
                             constraints of each leaf's physical type

so the lower layers only ever see one :class:`WriterOptions` of plain, already
checked values, with one :class:`ColumnOptions` per leaf.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping, Sequence

from parquet_core.constants import Encoding, PhysicalType
from parquet_core.encryption.properties import FileEncryptionProperties
from parquet_core.metadata.column_orders import IEEE_754_TOTAL_ORDER, INT96_TIMESTAMP_ORDER, TYPE_ORDER
from parquet_core.options.pyarrow import PYARROW_OPTIONS, split_pyarrow_arguments
from parquet_core.options.reader import READER_ALIASES, ReaderOptions, document_reader_options, reader_options
from parquet_core.options.specs import (
    PER_COLUMN,
    WRITER_DEFAULTS,
    WRITER_OPTION,
    WRITER_OPTIONS,
    BoolPerColumn,
    PerColumn,
    WriterOption,
    document_writer_options,
)
from parquet_core.options.values import (
    BLOOM_FPP,
    BLOOM_MAX_BYTES,
    UNSET,
    SortingColumn,
    bloom_settings,
    codec_of,
    encoding_of,
    kv_strings,
    per_column,
    sorting_columns,
)
from parquet_core.schema.file_types import FORMAT_VERSIONS
from parquet_core.schema.types import TypeId

__all__ = ["ReaderOptions", "reader_options", "READER_ALIASES", "document_reader_options",
           "ColumnOptions", "FormatOptions", "WriterOptions", "SortingColumn", "WriterOption",
           "format_options", "resolved_format_options", "writer_options", "writer_arguments", "check_option", "codec_of",
           "encoding_of", "kv_strings", "WRITER_DEFAULTS", "WRITER_OPTIONS", "WRITER_OPTION",
           "PER_COLUMN", "PerColumn", "BoolPerColumn", "document_writer_options"]


@dataclass(frozen=True, slots=True)
class ColumnOptions:
    """Resolved settings of one leaf column (their options: :data:`WRITER_OPTIONS`).

    The first seven are set by the per-column option whose ``target`` names them;
    the rest by ``column_key_value_metadata`` and ``bloom_filter_options``.
    """

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
    bloom_filter_fpp: float = BLOOM_FPP
    bloom_filter_max_bytes: int = BLOOM_MAX_BYTES


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """The settings that decide the file's schema (names, physical and logical types).

    Each field is the writer option of that name, checked (see :func:`format_options`).
    """

    version: str
    flavor: str | None
    #: resolved: ``flavor="spark"`` turns it on unless it was given as False
    use_deprecated_int96_timestamps: bool
    coerce_timestamps: str | None
    allow_truncated_timestamps: bool
    legacy_list_layout: bool
    #: False: list elements named ``item`` (pyarrow's legacy naming)
    use_compliant_nested_type: bool
    #: TIME columns stored with ``isAdjustedToUTC=true``
    write_time_adjusted_to_utc: bool

    @property
    def format_version(self) -> int:
        """``FileMetaData.version``: 1 for "1.0", else 2 (as pyarrow writes)."""
        return FORMAT_VERSIONS[self.version]


@dataclass(frozen=True, slots=True)
class WriterOptions:
    """Every writer option, checked and resolved: made by :func:`writer_options` (or
    :meth:`resolve`), never with defaults of its own.

    Each field but :attr:`format`, :attr:`defaults` and :attr:`columns` is the
    file-wide writer option of that name (documented in :data:`WRITER_OPTIONS`);
    :attr:`format` holds the ones that decide the schema, and the per-column
    options are resolved into :attr:`defaults` and the leaves' own :attr:`columns`.
    """

    format: FormatOptions
    row_group_size: int
    row_group_bytes: int | None
    data_page_size: int
    data_page_row_count_limit: int
    dictionary_pagesize_limit: int
    #: 1 or 2
    data_page_version: int
    write_page_checksum: bool
    write_page_index: bool
    #: resolved: None became ``not write_page_index``
    write_page_statistics: bool
    write_size_statistics: bool
    validate_utf8: bool
    created_by: str | None
    key_value_metadata: Mapping[str, str] | None
    #: resolved against the leaves
    sorting_columns: tuple[SortingColumn, ...]
    float_column_order: str
    int96_statistics: bool
    use_threads: bool
    encryption: FileEncryptionProperties | None
    store_schema: bool
    #: ``READER[-VERSION]`` whose shipped compatibility the file must keep (options/presets)
    compatible_with: str | None
    defaults: ColumnOptions
    columns: Mapping[str, ColumnOptions] = field(default_factory=dict)

    @classmethod
    def resolve(cls, columns: Sequence[str], physical_types: Mapping[str, int] | None = None,
                **kwargs: Any) -> WriterOptions:
        """:func:`writer_options`."""
        return writer_options(columns, physical_types, **kwargs)

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



#: the writer options held by FormatOptions (the others but the per-column ones are WriterOptions')
_FORMAT = frozenset(f.name for f in fields(FormatOptions))


def writer_arguments(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Every writer option: the ones given, the table's defaults for the others.

    pyarrow's names for writer options we take under another name, or that only
    tune pyarrow (:mod:`parquet_core.options.pyarrow`), are resolved here.

    Raises
    ------
    TypeError
        For a name that is neither a writer option nor pyarrow's (all such names are listed).
    UnsupportedFeatureError
        For a pyarrow option with a value we do not support.
    """
    ours = {k: v for k, v in kwargs.items() if k in WRITER_DEFAULTS}
    extra = {k: v for k, v in kwargs.items() if k not in WRITER_DEFAULTS}
    if extra:
        unknown = sorted(k for k in extra if PYARROW_OPTIONS.get(k) is None
                         or PYARROW_OPTIONS[k].kind == "handled")
        if unknown:
            raise TypeError(f"unknown writer option(s): {', '.join(unknown)}")
        mapped, _ = split_pyarrow_arguments("writer", extra, ours)
        ours.update(mapped)
    return {**WRITER_DEFAULTS, **ours}


def check_option(option: WriterOption, value: Any, what: str | None = None) -> Any:
    """*value* through *option*'s check; the error names the option (or *what*, e.g.
    ``compression['a']`` for one leaf's value) if the check's own message does not."""
    name = what or option.name
    try:
        return option.check(name, value)
    except (TypeError, ValueError) as exc:
        if option.name in str(exc):
            raise
        raise type(exc)(f"{name}: {exc}") from None


def format_options(**kwargs: Any) -> FormatOptions:
    """Check the options that decide the file's schema (the others are not checked here).

    Raises
    ------
    TypeError
        For an unknown option name or a non-boolean flag.
    ValueError
        For a ``version``, ``flavor`` or ``coerce_timestamps`` outside the
        allowed values (named in the message).
    """
    return resolved_format_options(writer_arguments(kwargs))


def resolved_format_options(args: Mapping[str, Any]) -> FormatOptions:
    """:func:`format_options` of arguments :func:`writer_arguments` already resolved."""
    got = {name: check_option(WRITER_OPTION[name], args[name]) for name in _FORMAT}
    if got["use_deprecated_int96_timestamps"] is None:   # Spark reads timestamps as INT96
        got["use_deprecated_int96_timestamps"] = got["flavor"] == "spark"
    return FormatOptions(**got)


def writer_options(columns: Sequence[str], physical_types: Mapping[str, int] | None = None, *,
                   resolved_format: FormatOptions | None = None,
                   resolved_arguments: Mapping[str, Any] | None = None, **kwargs: Any) -> WriterOptions:
    """Check writer keyword arguments and resolve them per leaf column.

    Parameters
    ----------
    columns:
        Dotted paths of the leaf columns (as the file names them), in schema order.
    physical_types:
        ``{dotted path: PhysicalType}``, used to pick type defaults (booleans
        are never dictionary encoded; ``use_byte_stream_split`` applies to the
        types BYTE_STREAM_SPLIT supports).
    resolved_format:
        The :func:`format_options` of the same arguments, when the caller made
        them already (they are not checked twice).
    resolved_arguments:
        The :func:`writer_arguments` of the options, when the caller resolved
        them already (then *kwargs* are not looked at).
    **kwargs:
        The options of :data:`WRITER_OPTIONS`; missing ones take their
        default, unknown names raise TypeError.
    """
    args = resolved_arguments if resolved_arguments is not None else writer_arguments(kwargs)
    columns = list(columns)
    fmt = resolved_format if resolved_format is not None else resolved_format_options(args)
    base, resolved = _column_options(args, columns, dict(physical_types or {}))
    return WriterOptions(format=fmt, defaults=base, columns=resolved, **_file_wide(args, columns))


def _file_wide(args: Mapping[str, Any], columns: list[str]) -> dict[str, Any]:
    """The file-wide options (not per column, not FormatOptions') through their checks."""
    out = {o.name: check_option(o, args[o.name]) for o in WRITER_OPTIONS
           if not o.per_column and o.name not in _FORMAT}
    if out["write_page_statistics"] is None:
        # page header statistics repeat what the column index holds: by default
        # they are written only when there is no page index (as parquet-java
        # and Arrow do); readers that use page statistics read the index
        out["write_page_statistics"] = not out["write_page_index"]
    try:
        out["sorting_columns"] = sorting_columns(out["sorting_columns"], columns)
    except (TypeError, ValueError) as exc:   # an entry of the wrong shape
        if "sorting_columns" in str(exc):
            raise
        raise type(exc)(f"sorting_columns: {exc}") from None
    return out


def _column_options(args: Mapping[str, Any], columns: list[str], ptypes: Mapping[str, int]
                    ) -> tuple[ColumnOptions, dict[str, ColumnOptions]]:
    """The default ColumnOptions and the leaves' own, from the per-column options in *args*."""
    defaults, overrides = _spread(args, columns)
    # an explicit value encoding means "no dictionary", as in pyarrow
    for col in columns:
        if overrides[col].get("encoding", defaults["encoding"]) is not None:
            overrides[col]["use_dictionary"] = False
    for name, resolve in _RESOLVERS.items():
        resolve(args[name], columns, ptypes, overrides)
    base = ColumnOptions(**defaults)
    return base, _per_leaf(base, overrides, ptypes)


def _spread(args: Mapping[str, Any], columns: list[str]
            ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The per-column options with a ``target``: (value of unnamed leaves, {leaf: its values})."""
    defaults: dict[str, Any] = {}
    overrides: dict[str, dict[str, Any]] = {c: {} for c in columns}
    for o in WRITER_OPTIONS:
        if not o.per_column or o.target is None:
            continue
        default, per = per_column(args[o.name], o.name, columns, o.takes_column_list)
        defaults[o.target] = check_option(o, o.default if default is UNSET else default)
        for col, v in per.items():
            overrides[col][o.target] = check_option(o, v, f"{o.name}[{col!r}]")
    return defaults, overrides


def _per_leaf(base: ColumnOptions, overrides: dict[str, dict[str, Any]], ptypes: Mapping[str, int]
              ) -> dict[str, ColumnOptions]:
    """One ColumnOptions per leaf that differs from *base*, after its type's constraints."""
    from parquet_core.encodings import valid_encodings  # the encoders: a writer's, not a reader's

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
    return resolved


def _byte_stream_split(value: Any, columns: list[str], ptypes: Mapping[str, int],
                       overrides: dict[str, dict[str, Any]]) -> None:
    """``use_byte_stream_split``: on for float/double (or for the leaves named) unless a leaf
    names its own encoding."""
    option = WRITER_OPTION["use_byte_stream_split"]
    default, per = per_column(value, option.name, columns, boolean=True)
    default = check_option(option, option.default if default is UNSET else default)
    bss_types = (PhysicalType.FLOAT, PhysicalType.DOUBLE)
    for col in columns:
        on = check_option(option, per[col], f"{option.name}[{col!r}]") if col in per else default
        if on and (col in per or ptypes.get(col) in bss_types):
            overrides[col].setdefault("encoding", Encoding.BYTE_STREAM_SPLIT)
            overrides[col].setdefault("use_dictionary", False)


def _bloom_filters(value: Any, columns: list[str], ptypes: Mapping[str, int],
                   overrides: dict[str, dict[str, Any]]) -> None:
    """``bloom_filter_options``: ``{leaf: True | {ndv, fpp, max_bytes}}``, the ``None`` key
    for every non-boolean leaf not named."""
    bloom = check_option(WRITER_OPTION["bloom_filter_options"], value) or {}
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


def _column_key_values(value: Any, columns: list[str], ptypes: Mapping[str, int],
                       overrides: dict[str, dict[str, Any]]) -> None:
    """``column_key_value_metadata``: ``{leaf: {key: value}}`` (``None`` key: unnamed leaves)."""
    ckv = check_option(WRITER_OPTION["column_key_value_metadata"], value) or {}
    default, per = per_column(ckv, "column_key_value_metadata", columns)
    for col in columns:
        kv = per.get(col, None if default is UNSET else default)
        if kv is not None:
            overrides[col]["key_value_metadata"] = kv_strings(kv, f"column_key_value_metadata[{col!r}]")


#: the per-column options without a ``target``: each resolved by rules of its own, in this order
_RESOLVERS: dict[str, Callable[[Any, list[str], Mapping[str, int], dict[str, dict[str, Any]]], None]] = {
    "use_byte_stream_split": _byte_stream_split,
    "bloom_filter_options": _bloom_filters,
    "column_key_value_metadata": _column_key_values,
}


def _fields(opts: ColumnOptions) -> dict[str, Any]:
    return {name: getattr(opts, name) for name in ColumnOptions.__dataclass_fields__}
