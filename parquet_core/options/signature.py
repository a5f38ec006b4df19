"""The writer's keyword arguments, written once for ``write_table`` and ``ParquetWriter``.

Both are defined as ``(..., *, filesystem=None, storage_options=None,
**pyarrow_options)``; :func:`writer_signature` gives them the signature that
``inspect.signature`` and ``help()`` show (and the documentation is generated
from): one keyword-only parameter per option of
:data:`~parquet_core.options.specs.WRITER_OPTIONS`, with its default and type,
between the leading parameters and ``filesystem``.  The options arrive in
``**pyarrow_options`` with pyarrow's own names, and
:func:`~parquet_core.options.writer_arguments` resolves them (unknown names
raise TypeError).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, TypeVar

from parquet_core.options.specs import WRITER_OPTIONS

__all__ = ["writer_signature", "WRITER_ANNOTATIONS"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: each writer option's type, as the signatures show it
WRITER_ANNOTATIONS: dict[str, str] = {
    "version": "str",
    "flavor": "str | None",
    "use_deprecated_int96_timestamps": "bool | None",
    "coerce_timestamps": "str | None",
    "allow_truncated_timestamps": "bool",
    "compression": "PerColumn[str | None]",
    "compression_level": "PerColumn[int | None]",
    "use_dictionary": "BoolPerColumn",
    "column_encoding": "PerColumn[str | None]",
    "use_byte_stream_split": "BoolPerColumn",
    "write_statistics": "BoolPerColumn",
    "statistics_truncate_length": "PerColumn[int | None]",
    "column_index_truncate_length": "PerColumn[int | None]",
    "bloom_filter_options": "Mapping[str | None, Any] | None",
    "column_key_value_metadata": "Mapping[str | None, Mapping[str, str]] | None",
    "data_page_version": "str",
    "data_page_size": "int | None",
    "data_page_row_count_limit": "int",
    "dictionary_pagesize_limit": "int | None",
    "row_group_size": "int | None",
    "row_group_bytes": "int | None",
    "write_page_index": "bool",
    "write_page_statistics": "bool | None",
    "write_size_statistics": "bool",
    "write_page_checksum": "bool",
    "sorting_columns": "Sequence[Any] | None",
    "key_value_metadata": "Mapping[Any, Any] | None",
    "created_by": "str | None",
    "validate_utf8": "bool",
    "legacy_list_layout": "bool",
    "use_compliant_nested_type": "bool",
    "write_time_adjusted_to_utc": "bool",
    "encryption": "FileEncryptionProperties | None",
    "store_schema": "bool",
    "float_column_order": "str",
    "int96_statistics": "bool",
    "compatible_with": "str | None",
    "use_threads": "bool",
}

_missing = [o.name for o in WRITER_OPTIONS if o.name not in WRITER_ANNOTATIONS]
if _missing or len(WRITER_ANNOTATIONS) != len(WRITER_OPTIONS):   # pragma: no cover - a spec edit
    raise RuntimeError(f"writer options without a signature type: {_missing}")

_TAIL = ("filesystem", "storage_options", "pyarrow_options")


def writer_signature(func: _F) -> _F:
    """Give *func* (``..., *, filesystem, storage_options, **pyarrow_options``) the
    signature with every writer option as a keyword-only parameter."""
    params = list(inspect.signature(func).parameters.values())
    if tuple(p.name for p in params[-3:]) != _TAIL or params[-1].kind is not inspect.Parameter.VAR_KEYWORD:
        raise TypeError(f"{func.__qualname__} must end with (*, {', '.join(_TAIL[:2])}, **{_TAIL[2]})")
    options = [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default,
                                 annotation=WRITER_ANNOTATIONS[o.name]) for o in WRITER_OPTIONS]
    func.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params[:-3] + options + params[-3:], return_annotation=inspect.signature(func).return_annotation)
    return func
