"""Every writer option once: name, default, check and documentation.

``pc.write_table`` and ``pc.ParquetWriter`` take these as explicit keyword
arguments whose defaults are read from :data:`WRITER_DEFAULTS`, and their
docstrings list them through :func:`document_writer_options`; each entry's
``check`` validates a value (naming the option when it refuses one), and
:func:`parquet_core.options.writer_options` resolves them through it. So a
default, a check and a description are each written in exactly one place
(this table). Names follow ``pyarrow.parquet.write_table`` wherever pyarrow
has the option.

*Per column* options take a single value for every leaf, or a mapping
``{dotted leaf path: value}`` whose ``None`` key is the value of every leaf
not named (without it those keep the default below). The boolean ones also
take a list of paths: on for exactly those leaves.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence, TypeAlias, TypeVar

from parquet_core.encryption.properties import FileEncryptionProperties
from parquet_core.options.presets import check_target
from parquet_core.options.pyarrow import refuse_pyarrow_crypto
from parquet_core.options.values import (
    BLOOM_FPP,
    BLOOM_MAX_BYTES,
    check_choice,
    check_codec,
    check_encoding,
    check_flag,
    check_key_values,
    check_level,
    check_mapping,
    check_optional_flag,
    check_optional_positive,
    check_page_version,
    check_positive,
    check_sorting,
    check_text,
)
from parquet_core.schema.file_types import FORMAT_VERSIONS

__all__ = ["WriterOption", "WRITER_OPTIONS", "WRITER_OPTION", "WRITER_DEFAULTS", "PER_COLUMN", "PerColumn",
           "BoolPerColumn", "document_writer_options"]

_T = TypeVar("_T")
#: A per-column option: one value, or ``{leaf path: value}`` with ``None`` for unnamed leaves.
PerColumn: TypeAlias = _T | Mapping[str | None, _T]
#: A boolean per-column option, which also takes the list of leaves to switch on.
BoolPerColumn: TypeAlias = bool | Sequence[str] | Mapping[str | None, bool]


@dataclass(frozen=True, slots=True)
class WriterOption:
    """One keyword argument of the writer: its default, type text, meaning and check."""

    name: str
    default: Any
    kind: str
    doc: str
    per_column: bool = False
    #: ``check(name, value) -> resolved value``: raises TypeError / ValueError naming the
    #: option; for a per-column option it checks each leaf's value
    check: Callable[[str, Any], Any] = check_flag
    #: the ``ColumnOptions`` attribute a per-column option sets (None: resolved by a
    #: function of its own in :mod:`parquet_core.options`)
    target: str | None = None

    @property
    def takes_column_list(self) -> bool:
        """A boolean per-column option: a list of leaves switches it on for exactly those."""
        return self.per_column and self.check is check_flag


def _check_size(name: str, value: Any) -> int:
    """A positive integer; None means the option's default (as in pyarrow)."""
    return check_positive(name, WRITER_DEFAULTS[name] if value is None else value)


def _check_encryption(name: str, value: Any) -> FileEncryptionProperties | None:
    if value is not None and not isinstance(value, FileEncryptionProperties):
        refuse_pyarrow_crypto(name, value)
        raise TypeError(f"{name} must be a parquet_core FileEncryptionProperties or None, "
                        f"not {type(value).__name__}")
    return value


_MiB = 1024 * 1024

WRITER_OPTIONS: tuple[WriterOption, ...] = (
    WriterOption("version", "2.6", '{"1.0", "2.4", "2.6"}', """
        Parquet format version whose logical types may be used. "1.0" stores
        uint32 as plain INT64 (no UINT_32) and records version 1 in the
        footer; "1.0" and "2.4" store nanosecond timestamps as microseconds
        (refusing values that would lose digits); "2.6" keeps them. Any other
        value raises ValueError.""",
                 check=check_choice(*FORMAT_VERSIONS)),
    WriterOption("flavor", None, '{None, "spark"}', """
        "spark": write what Spark's built-in reader accepts: top-level names
        have each of `` ,;{}()\\n\\t=`` replaced by ``_`` (as pyarrow does), and
        timestamps are INT96 unless ``use_deprecated_int96_timestamps=False``.
        Per-column options then name the leaves by their file names.""",
                 check=check_choice(None, "spark")),
    WriterOption("use_deprecated_int96_timestamps", None, "bool or None", """
        Store timestamps as legacy INT96 (read by old Spark, Hive and Impala);
        every unit fits, so ``coerce_timestamps`` is ignored. None means True
        with ``flavor="spark"``, else False.""",
                 check=check_optional_flag),
    WriterOption("coerce_timestamps", None, '{None, "ms", "us"}', """
        Store every timestamp in this unit. A value with nonzero digits below
        the unit raises ParquetSchemaError (column and row) unless
        ``allow_truncated_timestamps``. None keeps each column's unit (but see
        ``version`` for nanoseconds).""",
                 check=check_choice(None, "ms", "us")),
    WriterOption("allow_truncated_timestamps", False, "bool", """
        With ``coerce_timestamps``, cut values toward zero instead of refusing
        them. As in pyarrow it does not apply to the nanosecond change that
        ``version`` "1.0"/"2.4" implies without ``coerce_timestamps``.""",
                 check=check_flag),
    WriterOption("compression", "snappy", "str, None or mapping", """
        Codec: "none" (or None), "snappy", "gzip", "brotli", "zstd",
        "lz4_raw", "lz4" (Hadoop framing, which parquet-java reads) or "lzo"
        (Hadoop framing; needs the ``parquet-core[lzo]`` extra).""",
                 per_column=True, check=check_codec, target="compression"),
    WriterOption("compression_level", None, "int, None or mapping", """
        Level for gzip, brotli and zstd; None is the codec's default.""",
                 per_column=True, check=check_level, target="compression_level"),
    WriterOption("use_dictionary", True, "bool, list or mapping", """
        Dictionary-encode pages; past ``dictionary_pagesize_limit`` the rest of
        the chunk falls back to the value encoding. Never for booleans.""",
                 per_column=True, check=check_flag, target="use_dictionary"),
    WriterOption("column_encoding", None, "str, None or mapping", """
        Value encoding of non-dictionary pages: "plain", "rle" (booleans),
        "delta_binary_packed", "delta_length_byte_array", "delta_byte_array",
        "byte_stream_split" or "alp" (float and double; a preview encoding
        other libraries cannot read yet). Naming one turns dictionary encoding
        off for that column; a type it cannot encode raises ValueError. None:
        the type's default (PLAIN).""",
                 per_column=True, check=check_encoding, target="encoding"),
    WriterOption("use_byte_stream_split", False, "bool, list or mapping", """
        BYTE_STREAM_SPLIT (without dictionary) for float and double columns, or
        for the columns named.""",
                 per_column=True, check=check_flag),
    WriterOption("write_statistics", True, "bool, list or mapping", """
        Min/max (in the spec's column orders) and null counts per chunk and page.""",
                 per_column=True, check=check_flag, target="write_statistics"),
    WriterOption("statistics_truncate_length", 64, "int, None or mapping", """
        Longest binary min/max kept in statistics (max rounded up, exactness
        flags set); None keeps them whole.""",
                 per_column=True, check=check_optional_positive, target="statistics_truncate_length"),
    WriterOption("column_index_truncate_length", 64, "int, None or mapping", """
        The same for the column index.""",
                 per_column=True, check=check_optional_positive, target="column_index_truncate_length"),
    WriterOption("bloom_filter_options", None, "mapping or None", """
        ``{column: True or {"ndv": n, "fpp": p, "max_bytes": m}}``: a
        split-block Bloom filter per chunk, written after its row group. Without
        ``ndv`` each filter is sized for its chunk's distinct values (fpp
        """ f"{BLOOM_FPP}, at most {BLOOM_MAX_BYTES // _MiB} MiB" """). The ``None`` key applies
        to every non-boolean column not named.""",
                 per_column=True, check=check_mapping),
    WriterOption("column_key_value_metadata", None, "mapping or None", """
        ``{column: {key: value}}`` stored in each of the column's chunks
        (``None`` key: every column not named).""",
                 per_column=True, check=check_mapping),
    WriterOption("data_page_version", "1.0", '{"1.0", "2.0"}', """
        Data page header format (independent of ``version``).""",
                 check=check_page_version),
    WriterOption("data_page_size", _MiB, "int", """
        Target encoded bytes per data page (pages end on record boundaries);
        None means the default.""",
                 check=_check_size),
    WriterOption("data_page_row_count_limit", 20_000, "int", """
        Most rows per data page.""",
                 check=check_positive),
    WriterOption("dictionary_pagesize_limit", _MiB, "int", """
        Largest dictionary page before falling back; None means the default.""",
                 check=_check_size),
    WriterOption("row_group_size", 1024 * 1024, "int", """
        Most rows per row group; None means the default.""",
                 check=_check_size),
    WriterOption("row_group_bytes", 128 * _MiB, "int or None", """
        Approximate in-memory bytes per row group (the smaller limit wins);
        None: rows only.""",
                 check=check_optional_positive),
    WriterOption("write_page_index", True, "bool", """
        ColumnIndex and OffsetIndex after the row groups (pyarrow's default is
        False).""",
                 check=check_flag),
    WriterOption("write_page_statistics", None, "bool or None", """
        Statistics in data page headers too; None means ``not write_page_index``
        (readers that use page statistics read the index).""",
                 check=check_optional_flag),
    WriterOption("write_size_statistics", True, "bool", """
        SizeStatistics: unencoded byte-array bytes and level histograms.""",
                 check=check_flag),
    WriterOption("write_page_checksum", False, "bool", """
        CRC-32 of every page.""",
                 check=check_flag),
    WriterOption("sorting_columns", None, "sequence or None", """
        ``RowGroup.sorting_columns``: ``pc.SortingColumn`` (or pyarrow's),
        column names, or ``(column, "ascending" | "descending"[, nulls_first])``.
        The data is not checked.""",
                 check=check_sorting),
    WriterOption("key_value_metadata", None, "mapping or None", """
        File key/value metadata (keys and values become strings).""",
                 check=check_key_values),
    WriterOption("created_by", None, "str or None", """
        The footer's ``created_by``; None writes parquet-core's.""",
                 check=check_text),
    WriterOption("validate_utf8", True, "bool", """
        Refuse text columns holding invalid UTF-8 (ParquetSchemaError).""",
                 check=check_flag),
    WriterOption("legacy_list_layout", False, "bool", """
        Lists in the form Spark's ``writeLegacyFormat`` writes (for old Spark
        and Hive readers).""",
                 check=check_flag),
    WriterOption("use_compliant_nested_type", True, "bool", """
        Name list elements ``element``, as the spec's three-level LIST layout
        does (pyarrow's option); False names them ``item``, pyarrow's legacy
        naming (the layout is the same).""",
                 check=check_flag),
    WriterOption("write_time_adjusted_to_utc", False, "bool", """
        Write TIME columns with ``isAdjustedToUTC=true`` (pyarrow's option);
        the default writes them as local times.""",
                 check=check_flag),
    WriterOption("encryption", None, "FileEncryptionProperties or None", """
        Parquet modular encryption (``pc.FileEncryptionProperties``).""",
                 check=_check_encryption),
    WriterOption("store_schema", True, "bool", """
        Store what rebuilds the Arrow and pandas types on reading, as pyarrow
        does: ``ARROW:schema`` and the source's metadata (such as ``pandas``,
        with the DataFrame's index). False writes none of it and refuses
        columns only that metadata could restore (durations, extension
        types).""",
                 check=check_flag),
    WriterOption("float_column_order", "type_defined", '{"type_defined", "ieee754_total_order"}', """
        Column order of FLOAT, DOUBLE and FLOAT16 statistics. "type_defined"
        keeps NaN out of min/max (no bounds when all values are NaN, zeros
        widened); "ieee754_total_order" writes exact bounds by IEEE 754
        totalOrder (NaN bounds only when every value is NaN), which readers
        that do not know this order ignore. ``nan_count`` and the column
        index's ``nan_counts`` are written under both.""",
                 check=check_choice("type_defined", "ieee754_total_order")),
    WriterOption("int96_statistics", False, "bool", """
        Write min/max for INT96 timestamp columns under the
        INT96_TIMESTAMP_ORDER column order (chronological); readers that do
        not know that order ignore them. False writes only null counts, as
        TYPE_ORDER gives INT96 no order.""",
                 check=check_flag),
    WriterOption("compatible_with", None, "str or None", """
        A reader the file must work with: ``"spark"``, ``"spark-3.5"``,
        ``"pyarrow-15"``, ``"duckdb"``, ``"polars"``, ``"fastparquet"``.
        Options left at their defaults take values that reader reads
        (Spark: timestamps in microseconds), and a file that would use a
        feature the shipped compatibility table says it does not read is
        refused before anything is written: ValueError for an option,
        ParquetSchemaError for a column type (docs/compat.md).""",
                 check=check_target),
    WriterOption("use_threads", True, "bool", """
        Encode the column chunks of a row group in a thread pool (as many
        threads as CPUs), where numpy, the codecs and the checksums release
        the GIL; at most two chunks per thread are held encoded ahead of the
        one being written. The file is byte for byte the one
        ``use_threads=False`` writes; that sequential path is kept for
        debugging and for callers that run their own threads. Encrypted
        files are always written sequentially. pyarrow's writer has no such
        option (it encodes columns one by one).""",
                 check=check_flag),
)

#: Option name -> default, read by the writer signatures.
WRITER_DEFAULTS: Mapping[str, Any] = MappingProxyType({o.name: o.default for o in WRITER_OPTIONS})
#: Names of the per-column options.
PER_COLUMN = frozenset(o.name for o in WRITER_OPTIONS if o.per_column)
#: Option name -> its entry.
WRITER_OPTION: Mapping[str, WriterOption] = MappingProxyType({o.name: o for o in WRITER_OPTIONS})

_MARKER = "{writer options}"


def document_writer_options(doc: str | None) -> str | None:
    """Return *doc* with its ``{writer options}`` line replaced by numpydoc entries.

    Each entry reads ``name : kind, default <repr>`` followed by the text,
    indented like the marker line. ``None`` (docstrings stripped by ``-OO``)
    stays ``None``.
    """
    if doc is None:
        return None
    if _MARKER not in doc:
        raise ValueError("docstring has no {writer options} line")
    lines = doc.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == _MARKER)
    pad = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    entries = []
    for o in WRITER_OPTIONS:
        kind = o.kind + (" (per column)" if o.per_column else "")
        entries.append(f"{pad}{o.name} : {kind}, default {o.default!r}")
        body = textwrap.fill(" ".join(textwrap.dedent(o.doc).split()), width=76 - len(pad))
        entries.extend(f"{pad}    {line}" for line in body.splitlines())
    return "\n".join(lines[:at] + entries + lines[at + 1:])
