"""Writer presets: ``compatible_with="spark-3.5"`` (``pc.write_table``, ``pc.ParquetWriter``).

A preset names a reader of the shipped compatibility table
(:mod:`parquet_core.metadata.features`: ``pyarrow``, ``duckdb``, ``polars``,
``fastparquet``, ``spark``), optionally with a version.  It

* changes options left at their defaults to values the reader reads
  (:data:`PRESET_DEFAULTS`: Spark's reader refuses TIMESTAMP(NANOS), so
  timestamps are stored in microseconds, and a value with digits below a
  microsecond raises instead of being cut);
* refuses, before anything is written, a file that would use a feature the
  table says the reader does not read: an explicit option (``ValueError``
  naming the option, the column and the reader) or a column type
  (``ParquetSchemaError``).
"""

from __future__ import annotations

from typing import Any, Mapping

from parquet_core.constants import Encoding
from parquet_core.errors import ParquetSchemaError
from parquet_core.metadata.features import (
    codec_feature,
    encoding_feature,
    leaf_kind,
    parse_target,
    schema_features,
    unsupported,
)

__all__ = ["PRESET_DEFAULTS", "check_target", "preset_defaults", "check_compatible"]

#: option values a preset uses instead of the writer's defaults, per reader
PRESET_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    # parquet-java refuses TIMESTAMP(NANOS) ("Illegal Parquet type"): store microseconds
    "spark": {"coerce_timestamps": "us"},
    "pyarrow": {},
    "duckdb": {},
    "polars": {},
    "fastparquet": {},
}

#: which option a feature group comes from (for the error message)
_OPTION_OF = {"codec": "compression", "encoding": "column_encoding / use_dictionary / use_byte_stream_split",
              "page": "data_page_version", "index": "write_page_index", "bloom": "bloom_filter_options",
              "sorting_columns": "sorting_columns", "encryption": "encryption"}


def check_target(name: str, value: Any) -> str | None:
    """The ``compatible_with`` option: None or ``READER[-VERSION]``."""
    if value is None:
        return None
    try:
        parse_target(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None
    return value


def preset_defaults(options: dict[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """*options* with the preset's values for the options still at their defaults."""
    target = check_target("compatible_with", options.get("compatible_with"))
    if target is None:
        return options
    reader, _ = parse_target(target)
    out = dict(options)
    for name, value in PRESET_DEFAULTS[reader].items():
        if out.get(name) == defaults[name]:
            out[name] = value
    return out


def _planned(opts: Any, elements: list, descriptor: Any) -> dict[str, str]:
    """The catalogue features a file written with these options and schema will use."""
    out: dict[str, str] = {}
    schema_features(elements, out)
    out = {fid: f"column {name!r}" for fid, name in out.items()}
    leaves = [el for el in elements if not el.num_children]
    for i, d in enumerate(descriptor):
        path = d.dotted_path
        co = opts.columns.get(path, opts.defaults)
        where = f"column {path!r}"
        if co.compression:
            out.setdefault(codec_feature(co.compression), f"{where} (compression)")
        kind = leaf_kind(leaves[i] if i < len(leaves) else None, d.physical_type)
        if kind is not None:
            if co.encoding is not None and co.encoding != Encoding.PLAIN:
                out.setdefault(encoding_feature(co.encoding, kind), f"{where} (column_encoding)")
            if co.use_dictionary:
                out.setdefault(encoding_feature(Encoding.RLE_DICTIONARY, kind), f"{where} (use_dictionary)")
        if co.bloom_filter:
            out.setdefault("bloom.filter", f"{where} (bloom_filter_options)")
        if opts.data_page_version == 2:
            out.setdefault("page.v2_compressed" if co.compression else "page.v2", f"{where} (data_page_version)")
    if opts.write_size_statistics:
        out.setdefault("stats.size_statistics", "write_size_statistics")
    if opts.write_page_index:
        out.setdefault("index.page_index", "write_page_index")
    if opts.sorting_columns:
        out.setdefault("sorting_columns", "sorting_columns")
    if opts.float_column_order == "ieee754_total_order":
        out.setdefault("stats.float_total_order", "float_column_order")
    enc = opts.encryption
    if enc is not None:
        out.setdefault("encryption.plaintext_footer" if enc.plaintext_footer else "encryption.gcm_footer",
                       "encryption")
        if enc.algorithm == "AES_GCM_CTR_V1":
            out.setdefault("encryption.ctr", "encryption (algorithm)")
        if enc.column_keys:
            out.setdefault("encryption.column_keys", "encryption (column_keys)")
        if enc.aad_prefix is not None:
            out.setdefault("encryption.aad_prefix_stored" if enc.store_aad_prefix
                           else "encryption.aad_prefix_supplied", "encryption (aad_prefix)")
    return out


def check_compatible(opts: Any, elements: list, descriptor: Any) -> None:
    """Refuse a file the ``compatible_with`` target does not read (see the module docstring)."""
    target = opts.compatible_with
    if target is None:
        return
    planned = _planned(opts, elements, descriptor)
    missing = unsupported(target, planned)
    if not missing:
        return
    types = [(f, w) for f, w in missing if f.split(".", 1)[0] in ("logical", "physical", "nested")]
    fid, why = (types or missing)[0]
    more = f" (and {len(missing) - 1} more: {', '.join(f for f, _ in missing[1:4])})" if len(missing) > 1 else ""
    if types:
        raise ParquetSchemaError(f"compatible_with={target!r}: {planned[fid]} is of type {fid}, which the table "
                                 f"says the reader does not read ({why}){more}")
    option = _OPTION_OF.get(fid.split(".", 1)[0], fid)
    raise ValueError(f"compatible_with={target!r}: {planned[fid]} writes {fid} ({option}), which the table "
                     f"says the reader does not read ({why}){more}")
