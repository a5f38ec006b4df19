"""Rows of ``format("pqmeta")``: a Parquet file's metadata, one table per level, no data pages decoded.

Each level is a DDL schema (snake_case columns) and a function from an open
:class:`parquet_core.ParquetFile` to rows (dicts).  Only the public API of
parquet_core is used: the footer wrappers and their properties,
``column_index``/``offset_index``/``bloom_filter``, ``page_headers`` entries
(``PageHeaderInfo``), the schema tree's elements, and the spec's enums the
facade exports (``pc.PhysicalType``, ``pc.ConvertedType``, ``pc.Repetition``).  Typed min/max values are given as
strings (``str()`` of the Python value) plus their exactness, so every type
fits one column.

Levels: ``file``, ``schema``, ``rowgroup``, ``column``, ``page`` (from the
page headers), ``index`` (column and offset index entries per page),
``bloom`` (per column chunk, with an optional ``probe`` value).
"""

from __future__ import annotations

import os
import zlib
from typing import TYPE_CHECKING, Any, Callable

from parquet_core.errors import add_context

if TYPE_CHECKING:  # pragma: no cover
    from spark_adapter.pqmeta.options import MetaOptions


__all__ = ["LEVELS", "level_schema", "level_rows"]

def _enum(enum: Any, value: int | None) -> str | None:
    if value is None:
        return None
    try:
        return enum(value).name
    except ValueError:
        return str(value)     # a value newer than this reader


def _pc() -> Any:
    import parquet_core as pc

    return pc


def _member(v: Any) -> Any:
    """A thrift union (e.g. TimeUnit) by the name of its set member; other values as they are."""
    if hasattr(v, "thrift_spec"):
        return next((k for k, x in vars(v).items() if x is not None), None)
    return v


def _logical(lt: Any) -> str | None:
    if lt is None:
        return None
    for name in lt.thrift_spec[1:] if hasattr(lt, "thrift_spec") else ():
        if name is None:
            continue
        attr = name[2]
        value = getattr(lt, attr, None)
        if value is not None:
            details = {k: _member(v) for k, v in vars(value).items() if v is not None}
            return attr if not details else f"{attr}({', '.join(f'{k}={v}' for k, v in details.items())})"
    return None


def file_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    md = pf.metadata
    return [{
        "path": path, "num_rows": md.num_rows, "num_row_groups": md.num_row_groups,
        "num_columns": md.num_columns, "created_by": md.created_by, "format_version": md.format_version,
        "footer_size": md.footer_size, "file_size": os.path.getsize(path),
        "key_value_metadata": [(k.decode("utf-8", "replace"), v.decode("utf-8", "replace"))
                               for k, v in md.metadata.items()],
        "encryption_algorithm": md.encryption_algorithm,
        "footer_mode": md.footer_mode,
    }]


def schema_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    pc = _pc()
    md = pf.metadata
    leaf_of = {c.path: i for i, c in enumerate(md.schema.columns)}
    out = []

    def walk(node: Any, parts: tuple[str, ...], depth: int) -> None:
        el = node.element
        idx = leaf_of.get(parts) if parts else None
        desc = md.schema.column(idx) if idx is not None else None
        out.append({
            "path": path, "column_path": ".".join(parts) if parts else "", "name": node.name, "depth": depth,
            "repetition": _enum(pc.Repetition, el.repetition_type),
            "physical_type": _enum(pc.PhysicalType, el.type), "logical_type": _logical(el.logicalType),
            "converted_type": _enum(pc.ConvertedType, el.converted_type), "type_length": el.type_length,
            "precision": el.precision, "scale": el.scale, "field_id": el.field_id,
            "num_children": el.num_children,
            "max_definition_level": None if desc is None else desc.max_definition_level,
            "max_repetition_level": None if desc is None else desc.max_repetition_level,
            # TYPE_DEFINED (the name this table always used) or the other ColumnOrder members by name
            "column_order": None if idx is None else _order_name(md.column_order(idx)),
        })
        for child in node.children:
            walk(child, parts + (child.name,), depth + 1)

    walk(md.schema.root, (), 0)
    return out


def rowgroup_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    out = []
    for i in range(pf.metadata.num_row_groups):
        rg = pf.metadata.row_group(i)
        sorting = rg.sorting_columns
        out.append({
            "path": path, "row_group": i, "num_rows": rg.num_rows, "num_columns": rg.num_columns,
            "total_byte_size": rg.total_byte_size, "total_compressed_size": rg.total_compressed_size,
            "file_offset": rg.file_offset, "ordinal": rg.ordinal,
            "sorting_columns": None if not sorting else [
                f"{idx}{' desc' if desc else ''}{' nulls first' if nulls_first else ''}"
                for idx, desc, nulls_first in sorting],
        })
    return out


def _chunks(pf: Any):
    """``(row group, column, chunk metadata or the error reading it)`` for every chunk."""
    paths = [".".join(col.path) for col in pf.schema_descriptor.columns]
    for i in range(pf.metadata.num_row_groups):
        rg = pf.metadata.row_group(i)
        for j in range(rg.num_columns):
            try:
                yield i, j, rg.column(j)
            except _pc().ParquetError as exc:   # e.g. encrypted metadata without its key
                add_context(exc, column=paths[j] if j < len(paths) else j, row_group=i)
                yield i, j, exc


def column_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    out = []
    for i, j, c in _chunks(pf):
        if isinstance(c, Exception):   # this chunk's metadata is encrypted and its key missing
            kind, key_path, key_meta = pf.metadata.row_group(i).column_encryption(j)
            out.append({"path": path, "row_group": i, "column": j, "encrypted": True,
                        "column_path": ".".join(key_path) if key_path is not None else None,
                        **_crypto(kind, key_meta), "error": error_text(c)})
            continue
        meta = c.meta
        encoding_stats = c.encoding_stats
        st = c.statistics
        geo = c.geospatial_statistics
        ss = meta.size_statistics
        out.append({
            "path": path, "row_group": i, "column": j, "column_path": c.path_in_schema,
            "physical_type": c.physical_type, "codec": c.compression, "encodings": list(c.encodings),
            "encoding_stats": None if not encoding_stats else [
                f"{page_type}:{encoding}:{count}" for page_type, encoding, count in encoding_stats],
            "num_values": c.num_values, "total_compressed_size": c.total_compressed_size,
            "total_uncompressed_size": c.total_uncompressed_size, "data_page_offset": c.data_page_offset,
            "dictionary_page_offset": c.dictionary_page_offset,
            "null_count": None if st is None else st.null_count,
            "distinct_count": None if st is None else st.distinct_count,
            "min": None if st is None or st.min is None else str(st.min),
            "max": None if st is None or st.max is None else str(st.max),
            "is_min_exact": None if st is None else st.is_min_value_exact,
            "is_max_exact": None if st is None else st.is_max_value_exact,
            "unencoded_byte_array_data_bytes": None if ss is None else ss.unencoded_byte_array_data_bytes,
            "definition_level_histogram": None if ss is None else ss.definition_level_histogram,
            "repetition_level_histogram": None if ss is None else ss.repetition_level_histogram,
            "nan_count": None if st is None else st.nan_count,
            "column_order": _order_name(c.column_order),
            "geospatial_types": None if geo is None or geo.geospatial_types is None else list(geo.geospatial_types),
            "geo_bbox": None if geo is None or geo.bbox is None else geo.bbox.to_dict(),
            "has_bloom_filter": c.bloom_filter_offset is not None,
            "has_column_index": c.column_index_offset is not None,
            "has_offset_index": c.offset_index_offset is not None,
            "encrypted": c.is_encrypted, **_crypto(c.encryption_key, c.key_metadata),
        })
    return out


def _order_name(order: str | None) -> str | None:
    """A ColumnOrder for the tables: TYPE_ORDER keeps its old spelling TYPE_DEFINED."""
    return "TYPE_DEFINED" if order == "TYPE_ORDER" else order


def _crypto(kind: str | None, key_metadata: bytes | None) -> dict[str, Any]:
    """The chunk's crypto metadata: which key (``footer`` / ``column``) and its key metadata."""
    return {"encryption_key": kind,
            "key_metadata": None if key_metadata is None else key_metadata.decode("utf-8", "backslashreplace")}


def page_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    """One row per page, from the headers (bodies are read only to check their CRC)."""
    return _per_chunk(path, pf, lambda i, j, c: _chunk_pages(pf, path, i, j, c))


def _chunk_pages(pf: Any, path: str, i: int, j: int, c: Any) -> list[dict[str, Any]]:
    out = []
    for ordinal, info in enumerate(pf.page_headers(i, j)):
        st, body, crc = info.statistics, info.stored, info.crc
        out.append({
            "path": path, "row_group": i, "column": j, "column_path": c.path_in_schema,
            "page": ordinal, "offset": info.offset, "page_type": info.page_type,
            "encoding": info.encoding,
            "compressed_size": info.compressed_page_size, "uncompressed_size": info.uncompressed_page_size,
            "header_size": info.header_size, "num_values": info.num_values,
            "num_rows": info.num_rows, "num_nulls": info.num_nulls,
            "has_statistics": st is not None,
            "null_count": None if st is None else st.null_count,
            "min": None if st is None or st.min is None else str(st.min),
            "max": None if st is None or st.max is None else str(st.max),
            "crc_present": crc is not None,
            # over the page as stored (encrypted bytes for an encrypted chunk), as the spec says
            "crc_valid": None if crc is None else (zlib.crc32(body) & 0xFFFFFFFF) == crc,
        })
    return out


def index_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    return _per_chunk(path, pf, lambda i, j, c: _chunk_index(pf, path, i, j, c))


def _chunk_index(pf: Any, path: str, i: int, j: int, c: Any) -> list[dict[str, Any]]:
    ci = pf.column_index(i, j)
    oi = pf.offset_index(i, j)
    if ci is None and oi is None:
        return []
    out = []
    for p in range((oi or ci).num_pages):
        loc = None if oi is None else oi.page_locations[p]
        out.append({
            "path": path, "row_group": i, "column": j, "column_path": c.path_in_schema, "page": p,
            "offset": None if loc is None else loc.offset,
            "compressed_page_size": None if loc is None else loc.compressed_page_size,
            "first_row_index": None if loc is None else loc.first_row_index,
            "null_page": None if ci is None else ci.null_pages[p],
            "null_count": None if ci is None or ci.null_counts is None else ci.null_counts[p],
            "min": None if ci is None or ci.min_values[p] is None else str(ci.min_values[p]),
            "max": None if ci is None or ci.max_values[p] is None else str(ci.max_values[p]),
            "boundary_order": None if ci is None else ci.boundary_order,
        })
    return out


def _per_chunk(path: str, pf: Any, rows_of: Callable[[int, int, Any], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The rows of every column chunk; a chunk that cannot be read (encrypted without a key,
    corrupt) gives one row naming it, with the reason in ``error``."""
    out = []
    paths = [".".join(col.path) for col in pf.schema_descriptor.columns]
    for i, j, c in _chunks(pf):
        try:
            if isinstance(c, Exception):
                raise c
            if c.is_encrypted and c.decryptor is None:
                raise _pc().ParquetEncryptionError("the column chunk is encrypted and no key was given")
            out.extend(rows_of(i, j, c))
        except Exception as exc:  # reported as data: one bad chunk must not fail the job
            out.append({"path": path, "row_group": i, "column": j,
                        "column_path": paths[j] if j < len(paths) else None, "error": error_text(exc)})
    return out


def error_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, with its notes (file, column, offset)."""
    notes = "; ".join(getattr(exc, "__notes__", ()) or ())
    return f"{type(exc).__name__}: {exc}" + (f" ({notes})" if notes else "")


def bloom_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    probe = options.probe
    return _per_chunk(path, pf, lambda i, j, c: _chunk_bloom(pf, path, i, j, c, probe))


def _chunk_bloom(pf: Any, path: str, i: int, j: int, c: Any, probe: str | None) -> list[dict[str, Any]]:
    if c.bloom_filter_offset is None:
        return []
    bf = pf.bloom_filter(i, j)
    answer = None
    if probe is not None and bf is not None:
        try:
            answer = bool(bf.might_contain(_probe_value(probe, c)))
        except (ValueError, TypeError):
            answer = None
    return [{
        "path": path, "row_group": i, "column": j, "column_path": c.path_in_schema,
        "offset": c.bloom_filter_offset, "length": c.bloom_filter_length,
        "num_bytes": None if bf is None else bf.num_bytes,
        "algorithm": "SPLIT_BLOCK", "hash": "XXHASH", "compression": "UNCOMPRESSED",
        "probe": probe, "might_contain": answer,
    }]


def _probe_value(text: str, chunk: Any) -> Any:
    """The probe string as a value of the column (numbers parsed for numeric columns)."""
    name = chunk.descriptor.data_type.name
    if name.startswith(("int", "uint")):
        return int(text)
    if name.startswith("float"):
        return float(text)
    return text


def check_rows(path: str, pf: Any, options: MetaOptions) -> list[dict[str, Any]]:
    """``level=check``: the validator's findings about one file, one row each, or one ``ok`` row.

    ``.option("checkLevel", "footer"|"pages"|"data")`` (default ``data``) is
    ``pc.check``'s level; keys come from the same options as the other levels.
    *pf* is unused: the validator opens the file itself, leniently, so that a
    file the reader refuses still gives findings (``readable`` false).
    """
    from spark_adapter.core.crypto_options import decryption_from_options

    pc = _pc()
    level = options.check_level
    report = pc.check(path, level=level, decryption=decryption_from_options(options.encryption, path))
    base = {"path": path, "check_level": level, "ok": report.ok, "readable": report.readable}
    rows = [{**base, "severity": f.severity, "rule": f.rule, "message": f.message, "spec": f.spec,
             "row_group": f.row_group, "column_path": f.column, "page": f.page, "offset": f.offset}
            for f in report.findings]
    # a clean file still gets a row, so that the result lists every file swept
    return rows or [{**base, "severity": "ok", "rule": None, "message": None, "spec": None}]


LEVELS: dict[str, tuple[str, Callable[[str, Any, MetaOptions], list[dict[str, Any]]]]] = {
    "file": ("path string, num_rows bigint, num_row_groups int, num_columns int, created_by string, "
             "format_version int, footer_size bigint, file_size bigint, key_value_metadata map<string,string>, "
             "encryption_algorithm string, footer_mode string, error string", file_rows),
    "schema": ("path string, column_path string, name string, depth int, repetition string, "
               "physical_type string, logical_type string, converted_type string, type_length int, "
               "precision int, scale int, field_id int, num_children int, max_definition_level int, "
               "max_repetition_level int, column_order string, error string", schema_rows),
    "rowgroup": ("path string, row_group int, num_rows bigint, num_columns int, total_byte_size bigint, "
                 "total_compressed_size bigint, file_offset bigint, ordinal int, sorting_columns array<string>, "
                 "error string",
                 rowgroup_rows),
    "column": ("path string, row_group int, column int, column_path string, physical_type string, codec string, "
               "encodings array<string>, encoding_stats array<string>, num_values bigint, "
               "total_compressed_size bigint, total_uncompressed_size bigint, data_page_offset bigint, "
               "dictionary_page_offset bigint, null_count bigint, distinct_count bigint, min string, "
               "max string, is_min_exact boolean, is_max_exact boolean, unencoded_byte_array_data_bytes bigint, "
               "definition_level_histogram array<bigint>, repetition_level_histogram array<bigint>, "
               "nan_count bigint, column_order string, geospatial_types array<int>, geo_bbox map<string,double>, "
               "has_bloom_filter boolean, has_column_index boolean, has_offset_index boolean, "
               "encrypted boolean, encryption_key string, key_metadata string, error string", column_rows),
    "page": ("path string, row_group int, column int, column_path string, page int, offset bigint, "
             "page_type string, encoding string, compressed_size int, uncompressed_size int, header_size int, "
             "num_values int, num_rows int, num_nulls int, has_statistics boolean, null_count bigint, "
             "min string, max string, crc_present boolean, "
             "crc_valid boolean, error string", page_rows),
    "index": ("path string, row_group int, column int, column_path string, page int, offset bigint, "
              "compressed_page_size int, first_row_index bigint, null_page boolean, null_count bigint, "
              "min string, max string, boundary_order string, error string", index_rows),
    "bloom": ("path string, row_group int, column int, column_path string, offset bigint, length int, "
              "num_bytes int, algorithm string, hash string, compression string, probe string, "
              "might_contain boolean, error string", bloom_rows),
    "check": ("path string, check_level string, ok boolean, readable boolean, severity string, rule string, "
              "message string, spec string, row_group int, column_path string, page int, offset bigint, "
              "error string", check_rows),
}


def _open_unbuffered(path: str) -> Any:
    return open(path, "rb", buffering=0)


def level_schema(level: str) -> str:
    """The DDL of a level's rows."""
    try:
        return LEVELS[level][0]
    except KeyError:
        raise ValueError(f"pqmeta: unknown level {level!r}; expected one of {sorted(LEVELS)}") from None


def level_rows(level: str, path: str, options: MetaOptions | dict[str, str],
               opener: Callable[[str], Any] | None = None) -> list[dict[str, Any]]:
    """The rows of one file at one level.

    A file that cannot be read (corrupt, truncated, an encrypted footer without
    its key) gives one row with its path and the reason in ``error``, unless
    ``.option("mode", "failfast")`` asks for the error to fail the job.

    The file is read through a plain unbuffered file object (*opener*, default
    ``open(path, "rb", buffering=0)``): positional reads of the footer and of the
    structures the level shows, nothing else (no memory map, no read-ahead).
    """
    import parquet_core as pc
    from spark_adapter.core.crypto_options import decryption_from_options
    from spark_adapter.pqmeta.options import meta_options

    level_schema(level)
    options = meta_options(options)
    mode = options.mode
    try:
        if level == "check":     # the validator opens the file itself, leniently
            rows = check_rows(path, None, options)
        else:
            with (opener or _open_unbuffered)(path) as fh, \
                    pc.ParquetFile(fh, decryption=decryption_from_options(options.encryption, path)) as pf:
                rows = LEVELS[level][1](path, pf, options)
    except Exception as exc:  # reported as data: one bad file must not fail the job
        if mode == "failfast":
            raise
        return [{"path": path, "error": error_text(exc)}]
    if mode == "failfast":
        bad = next((r for r in rows if r.get("error")), None)
        if bad is not None:
            raise pc.ParquetError(f"pqmeta: {bad['error']} (row group {bad.get('row_group')}, "
                                  f"column {bad.get('column_path')!r})")
    return rows
