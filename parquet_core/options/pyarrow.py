"""pyarrow.parquet's keyword arguments that our entry points do not take under that name.

Code written for ``pyarrow.parquet`` passes them; each is declared once here
with what we do with it:

* ``alias``     the same option under our name (``encryption_properties`` ->
                ``encryption``); giving both is a TypeError
* ``tuning``    tunes pyarrow's C++ internals (buffering, memory mapping, Thrift
                limits): accepted, its value checked, no effect on the result
                (the entry says what we do instead)
* ``default``   accepted with the values listed (those that mean what we do
                anyway), any other refused with :class:`UnsupportedFeatureError`
                naming the option and why
* ``handled``   implemented by the entry point itself (``use_pandas_metadata``,
                ``ParquetFile(metadata=)``, ``write_to_dataset(schema=, partitioning=,
                file_visitor=)``); handed back to it by :func:`split_pyarrow_arguments`

:data:`PYARROW_FUNCTIONS` lists, for each ``pyarrow.parquet`` function, every
parameter its signature has and what ours does with it (the options above, or
``same``: we take it under that name with pyarrow's meaning);
:func:`pyarrow_parameter_table` renders it as the Markdown table of
``docs/pyarrow-parameters.md``, and a test checks that the table covers every
parameter of the installed pyarrow's signatures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from parquet_core.errors import UnsupportedFeatureError

__all__ = ["PyarrowOption", "PYARROW_OPTIONS", "PYARROW_FUNCTIONS", "SAME", "split_pyarrow_arguments",
           "pyarrow_parameter_table", "refuse_pyarrow_crypto"]


def _any(name: str, value: Any) -> Any:
    return value


def _flag(name: str, value: Any) -> Any:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def _size(name: str, value: Any) -> Any:
    """None or a non-negative int."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise TypeError(f"{name} must be a non-negative int or None, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class PyarrowOption:
    """One pyarrow keyword argument we take under its pyarrow name (see the module)."""

    name: str
    kind: str                       # "alias" | "tuning" | "default" | "handled"
    doc: str
    #: ``alias``: our option's name
    target: str | None = None
    #: ``tuning``: checks a value (TypeError naming the option)
    check: Callable[[str, Any], Any] = _any
    #: ``default``: the values accepted
    accepted: tuple[Any, ...] = ()

    def describe(self) -> str:
        text = " ".join(self.doc.split())
        if self.kind == "alias":
            return f"our `{self.target}`. {text}".strip()
        if self.kind == "tuning":
            return f"accepted, no effect: {text}"
        if self.kind == "default":
            ok = ", ".join(repr(v) for v in self.accepted)
            return f"accepted when {ok}; anything else raises UnsupportedFeatureError: {text}"
        return text


_OPTIONS: tuple[PyarrowOption, ...] = (
    # -- reading ---------------------------------------------------------------------------
    PyarrowOption("use_pandas_metadata", "handled", """
        With ``columns``, the pandas index columns recorded in the file's ``pandas``
        metadata are read too (as pyarrow does)."""),
    PyarrowOption("memory_map", "tuning", """
        local files are always memory-mapped (positional reads where a map cannot be
        made), and pages are decoded from views of the map.""", check=_flag),
    PyarrowOption("buffer_size", "tuning", """
        reads are ranged per column chunk (coalesced, fetched concurrently from object
        stores); there is no read buffer to size.""", check=_size),
    PyarrowOption("pre_buffer", "tuning", """
        column chunk ranges are always coalesced and, on object stores, fetched
        concurrently, which is what pre-buffering does in pyarrow.""", check=_flag),
    PyarrowOption("thrift_string_size_limit", "tuning", """
        our Thrift decoder bounds every string and list by the bytes of the footer it
        reads, so a hostile length cannot allocate past the file.""", check=_size),
    PyarrowOption("thrift_container_size_limit", "tuning", """
        as ``thrift_string_size_limit``.""", check=_size),
    PyarrowOption("schema_depth_limit", "tuning", """
        our schema parser walks the flat element list without recursion limits of its
        own; the depth is bounded by the number of schema elements.""", check=_size),
    PyarrowOption("arrow_extensions_enabled", "default", """
        ``to_arrow()`` gives Arrow's canonical extension types (``uuid``, ``json``) as
        pyarrow does by default; their storage types instead are not supported.""",
                  accepted=(True,)),
    PyarrowOption("metadata", "handled", """
        A FileMetadata of the same file (ours or pyarrow's): the file's own footer is
        read all the same, and a metadata whose row, row group or column counts differ
        from it raises ParquetFormatError."""),
    PyarrowOption("common_metadata", "tuning", """
        pyarrow keeps it for the legacy dataset's pandas metadata; the file's own
        footer holds what we need.""", check=_any),
    PyarrowOption("where", "handled", """
        ``read_metadata`` / ``read_schema``: the file (our first argument, ``source``)."""),
    # -- writing ---------------------------------------------------------------------------
    PyarrowOption("encryption_properties", "alias", """
        a ``pc.FileEncryptionProperties`` (pyarrow's own objects are refused: their keys
        cannot be read back from pyarrow); ``pc.CryptoFactory`` makes one from pyarrow's
        KmsConnectionConfig, EncryptionConfiguration and KMS clients.""", target="encryption"),
    PyarrowOption("chunk_size", "alias", """pyarrow's older name.""", target="row_group_size"),
    PyarrowOption("max_rows_per_page", "alias", """
        None means our default.""", target="data_page_row_count_limit"),
    PyarrowOption("write_batch_size", "tuning", """
        pages are cut by ``data_page_size`` and ``data_page_row_count_limit`` over whole
        column chunks; there is no write batch.""", check=_size),
    PyarrowOption("writer_engine_version", "tuning", """
        ignored by pyarrow too.""", check=_any),
    PyarrowOption("store_decimal_as_integer", "tuning", """
        decimals of at most 18 digits are always stored as INT32 / INT64 (what True
        asks; the spec's recommendation), wider ones as FIXED_LEN_BYTE_ARRAY; the
        values read back are the same either way.""", check=_flag),
    PyarrowOption("use_content_defined_chunking", "default", """
        content-defined page boundaries are not implemented; pages are cut by size and
        row count.""", accepted=(False, None)),
    # -- datasets --------------------------------------------------------------------------
    PyarrowOption("schema", "handled", """
        ``write_to_dataset``: the table is cast to it before writing (values must fit
        exactly; pyarrow requires the table to have that schema already)."""),
    PyarrowOption("partitioning", "handled", """
        ``write_to_dataset``: a list of column names (as ``partition_cols``, Hive
        folders); other partitioning objects raise UnsupportedFeatureError."""),
    PyarrowOption("file_visitor", "handled", """
        ``write_to_dataset``: called once per file written with an object holding
        ``path``, ``size`` and ``metadata`` (the footer), as pyarrow's WrittenFile."""),
    PyarrowOption("use_threads", "tuning", """
        ``write_to_dataset``: each file is written with the writer's own threads.""",
                  check=lambda n, v: v if v is None else _flag(n, v)),
)

#: pyarrow's name -> its declaration
PYARROW_OPTIONS: Mapping[str, PyarrowOption] = {o.name: o for o in _OPTIONS}

#: a parameter we take under pyarrow's name, with pyarrow's meaning (the note says where
#: the default or accepted values differ)
SAME = "same"

_R = "decryption_properties"
_INT96_UNIT = ("same ('s', 'ms', 'us', 'ns'; INT96 inside lists, maps and structs too; every read "
               "entry); a value with no exact count in the unit (pyarrow wraps it around) raises "
               "UnsupportedFeatureError")
_TYPES = "same (every read entry): only the Arrow type to_arrow() gives"
#: every parameter of each ``pyarrow.parquet`` entry point -> SAME, a note starting with
#: "same" (same name and meaning, with a difference worth saying), or the name of an
#: entry of PYARROW_OPTIONS
PYARROW_FUNCTIONS: Mapping[str, Mapping[str, str]] = {
    "read_table": {
        "source": "same; also bytes, buffers, pyarrow NativeFile / Buffer and URLs",
        "columns": SAME, "use_threads": SAME, "schema": SAME,
        "use_pandas_metadata": "use_pandas_metadata", "read_dictionary": SAME,
        "binary_type": _TYPES, "list_type": _TYPES, "memory_map": "memory_map",
        "buffer_size": "buffer_size", "partitioning": SAME, "filesystem": SAME,
        "filters": "same; DNF lists, our expressions and pyarrow.compute expressions",
        "ignore_prefixes": SAME, "pre_buffer": "pre_buffer",
        "coerce_int96_timestamp_unit": _INT96_UNIT,
        _R: "same (alias of our `decryption`); pyarrow's own objects are refused",
        "thrift_string_size_limit": "thrift_string_size_limit",
        "thrift_container_size_limit": "thrift_container_size_limit",
        "schema_depth_limit": "schema_depth_limit",
        "page_checksum_verification": "same; our default is True (pyarrow's False)",
        "arrow_extensions_enabled": "arrow_extensions_enabled",
    },
    "read_pandas": {"source": SAME, "columns": SAME,
                    "kwargs": "same: read_table's, with use_pandas_metadata=True"},
    "write_table": {
        "table": "same (the first argument; we call it `data`)", "where": SAME,
        "row_group_size": "same; also taken as the third positional argument",
        "version": SAME, "use_dictionary": SAME, "compression": SAME, "write_statistics": SAME,
        "use_deprecated_int96_timestamps": SAME, "coerce_timestamps": SAME,
        "allow_truncated_timestamps": SAME, "data_page_size": SAME, "flavor": SAME,
        "filesystem": SAME, "compression_level": SAME, "use_byte_stream_split": SAME,
        "column_encoding": SAME, "data_page_version": SAME,
        "use_compliant_nested_type": "same: False names list elements `item`",
        "encryption_properties": "encryption_properties", "write_batch_size": "write_batch_size",
        "dictionary_pagesize_limit": SAME, "store_schema": SAME,
        "write_page_index": "same; our default is True (pyarrow's False)",
        "write_page_checksum": SAME, "sorting_columns": SAME,
        "store_decimal_as_integer": "store_decimal_as_integer",
        "write_time_adjusted_to_utc": SAME,
        "max_rows_per_page": "max_rows_per_page", "bloom_filter_options": SAME,
        "use_content_defined_chunking": "use_content_defined_chunking",
        "kwargs": "same: writer options, and pyarrow's `chunk_size` (our `row_group_size`)",
    },
    "ParquetWriter": {
        "where": SAME, "schema": SAME, "filesystem": SAME, "flavor": SAME, "version": SAME,
        "use_dictionary": SAME, "compression": SAME, "write_statistics": SAME,
        "use_deprecated_int96_timestamps": SAME, "compression_level": SAME,
        "use_byte_stream_split": SAME, "column_encoding": SAME,
        "writer_engine_version": "writer_engine_version", "data_page_version": SAME,
        "use_compliant_nested_type": "same: False names list elements `item`",
        "encryption_properties": "encryption_properties", "write_batch_size": "write_batch_size",
        "dictionary_pagesize_limit": SAME, "store_schema": SAME,
        "write_page_index": "same; our default is True (pyarrow's False)",
        "write_page_checksum": SAME, "sorting_columns": SAME,
        "store_decimal_as_integer": "store_decimal_as_integer",
        "write_time_adjusted_to_utc": SAME,
        "max_rows_per_page": "max_rows_per_page", "bloom_filter_options": SAME,
        "use_content_defined_chunking": "use_content_defined_chunking",
        "options": "same: further writer options (`data_page_size`, `coerce_timestamps`...)",
    },
    "ParquetFile": {
        "source": "same; also bytes, buffers, pyarrow NativeFile / Buffer and URLs",
        "metadata": "metadata", "common_metadata": "common_metadata", "read_dictionary": SAME,
        "binary_type": _TYPES, "list_type": _TYPES, "memory_map": "memory_map",
        "buffer_size": "buffer_size", "pre_buffer": "pre_buffer",
        "coerce_int96_timestamp_unit": _INT96_UNIT,
        _R: "same (alias of our `decryption`); pyarrow's own objects are refused",
        "thrift_string_size_limit": "thrift_string_size_limit",
        "thrift_container_size_limit": "thrift_container_size_limit",
        "schema_depth_limit": "schema_depth_limit", "filesystem": SAME,
        "page_checksum_verification": "same; our default is True (pyarrow's False)",
        "arrow_extensions_enabled": "arrow_extensions_enabled",
    },
    "read_metadata": {"where": "where", "memory_map": "memory_map",
                      _R: "same (alias of our `decryption`)", "filesystem": SAME,
                      "arrow_extensions_enabled": "arrow_extensions_enabled"},
    "read_schema": {"where": "where", "memory_map": "memory_map",
                    _R: "same (alias of our `decryption`)", "filesystem": SAME,
                    "arrow_extensions_enabled": "arrow_extensions_enabled"},
    "write_to_dataset": {
        "table": SAME, "root_path": SAME, "partition_cols": SAME, "filesystem": SAME,
        "schema": "schema", "partitioning": "partitioning", "basename_template": SAME,
        "use_threads": "use_threads", "file_visitor": "file_visitor",
        "existing_data_behavior": "same; our default is 'error' (pyarrow's 'overwrite_or_ignore' "
                                  "through the dataset writer)",
        "kwargs": "same: writer options, and pyarrow's dataset-writer `max_rows_per_file`, "
                  "`max_open_files`, `min_rows_per_group`, `max_rows_per_group`, `max_partitions` "
                  "(any input, cut into batches as pyarrow's writer cuts it; no partition limit by "
                  "default, pyarrow's is 1024), `preserve_order` and `create_dir` (accepted: rows "
                  "are always written in input order, folders made where the file system has them)",
    },
    "ParquetDataset": {
        "path_or_paths": SAME, "filesystem": SAME, "schema": SAME, "filters": SAME,
        "read_dictionary": SAME, "binary_type": _TYPES, "list_type": _TYPES,
        "memory_map": "memory_map", "buffer_size": "buffer_size", "partitioning": SAME,
        "ignore_prefixes": SAME, "pre_buffer": "pre_buffer",
        "coerce_int96_timestamp_unit": _INT96_UNIT,
        _R: "same (alias of our `decryption`)",
        "thrift_string_size_limit": "thrift_string_size_limit",
        "thrift_container_size_limit": "thrift_container_size_limit",
        "schema_depth_limit": "schema_depth_limit",
        "page_checksum_verification": "same; our default is True (pyarrow's False)",
        "arrow_extensions_enabled": "arrow_extensions_enabled",
    },
    "write_metadata": {"schema": SAME, "where": SAME, "metadata_collector": SAME, "filesystem": SAME,
                       "kwargs": "same: writer options"},
}


def split_pyarrow_arguments(function: str, kwargs: Mapping[str, Any], given: Mapping[str, Any] | None = None
                            ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Resolve the pyarrow-only keywords *kwargs* given to *function*.

    Returns ``(ours, handled)``: our options (aliases renamed) and the ``handled``
    ones for the entry point itself; ``tuning`` options are checked and dropped,
    ``default`` options checked against their accepted values.  *given* holds the
    entry point's own arguments, to refuse an option given under both names.

    Raises
    ------
    TypeError
        A name pyarrow does not have either (all listed), or both names of an alias.
    UnsupportedFeatureError
        A ``default`` option with a value we do not support (naming it and why).
    """
    ours: dict[str, Any] = {}
    handled: dict[str, Any] = {}
    unknown = []
    for name, value in kwargs.items():
        option = PYARROW_OPTIONS.get(name)
        if option is None:
            unknown.append(name)
        elif option.kind == "alias":
            target = option.target or name
            if (given or {}).get(target) not in (None, _unset(target)) or target in ours:
                raise TypeError(f"{function}: {name} and {target} name the same option; give one")
            if value is not None:
                ours[target] = value
        elif option.kind == "tuning":
            option.check(name, value)
        elif option.kind == "default":
            if not any(value is v or (type(value) is type(v) and value == v) for v in option.accepted):
                raise UnsupportedFeatureError(
                    f"{function}: {name}={value!r} is not supported: {' '.join(option.doc.split())}")
        else:
            handled[name] = value
    if unknown:
        raise TypeError(f"{function}() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    return ours, handled


def _unset(target: str) -> Any:
    """The default of one of our options (an alias given beside it is refused only when
    the option itself was changed)."""
    from parquet_core.options.specs import WRITER_DEFAULTS

    return WRITER_DEFAULTS.get(target)


def refuse_pyarrow_crypto(name: str, value: Any) -> None:
    """Refuse pyarrow's own encryption / decryption properties with what to use instead."""
    module = type(value).__module__ or ""
    if module.startswith("pyarrow"):
        raise UnsupportedFeatureError(
            f"{name}: pyarrow's {type(value).__name__} cannot be used (its keys are held inside "
            f"pyarrow's C++ object); build the same with pc.FileEncryptionProperties / "
            f"pc.FileDecryptionProperties, or with pc.CryptoFactory (which takes pyarrow's "
            f"KmsConnectionConfig / EncryptionConfiguration and KMS clients)")


def pyarrow_parameter_table() -> str:
    """The Markdown table of every parameter of :data:`PYARROW_FUNCTIONS` (docs/pyarrow-parameters.md)."""
    lines = ["| function | parameter | what parquet_core does |", "|---|---|---|"]
    for function, params in PYARROW_FUNCTIONS.items():
        for name, how in params.items():
            option = PYARROW_OPTIONS.get(how)
            text = option.describe() if option is not None else how
            lines.append(f"| `{function}` | `{name}` | {text.replace('|', '/')} |")
    return "\n".join(lines)
