"""The inspection commands of ``pqc``: footer, pages, dictionary, page indexes, Bloom filters, sizes.

Each takes one or more files, ``--columns`` and ``--json``. With ``--json``
the output is one JSON object per line: per file for ``footer``, ``schema``
and ``column-size``, per column chunk for the others (each naming its
``file``, ``row_group`` and ``column``).
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Iterator, TypedDict

from parquet_core.cli.common import (
    cli_message,
    columns_arg,
    decryption_for,
    emit,
    select_leaves,
    storage_options_arg,
)
from parquet_core.errors import ParquetEncryptionError
from parquet_core.file.reader import ParquetFile
from parquet_core.metadata.thrift_dict import plain_value, thrift_to_dict
from parquet_core.schema.types import FLOAT_IDS, TypeId

# what parquet_core.cli uses: the subcommand table and the functions behind it
__all__ = ["HELP", "chunk_command", "cmd_column_size", "footer_command", "open_file", "schema_json"]


def open_file(path: str, args: argparse.Namespace) -> ParquetFile:
    """The file, opened with the command's key options and checksum choice."""
    return ParquetFile(path, decryption=decryption_for(args, path),
                       page_checksum_verification=not getattr(args, "no_verify_checksums", False),
                       storage_options=storage_options_arg(args))


def _chunks(pf: ParquetFile, args: argparse.Namespace) -> Iterator[tuple[int, int, str]]:
    """``(row group, leaf index, dotted path)`` of every selected chunk."""
    leaves = select_leaves(pf, columns_arg(args))
    groups = range(pf.num_row_groups) if args.row_group is None else [args.row_group]
    for rg in groups:
        if not 0 <= rg < pf.num_row_groups:
            raise IndexError(f"row group {rg} out of range (the file has {pf.num_row_groups})")
        for j in leaves:
            yield rg, j, pf.metadata.schema.column(j).dotted_path


def _per_chunk(path: str, args: argparse.Namespace,
               render: Callable[[ParquetFile, int, int], tuple[dict[str, Any], list[str]]]) -> int:
    """Run *render* on every selected chunk; a chunk whose key is missing is reported, not fatal."""
    with open_file(path, args) as pf:
        out: list[str | dict[str, Any]] = [] if args.json else [f"{path}:"]
        status = 0
        for rg, j, name in _chunks(pf, args):
            where = {"file": path, "row_group": rg, "column": name}
            try:
                obj, text = render(pf, rg, j)
            except ParquetEncryptionError as exc:
                obj, text, status = {"error": cli_message(str(exc))}, [f"encrypted: {cli_message(str(exc))}"], 1
            if args.json:
                out.append({**where, **obj})
            else:
                out.append(f"  row group {rg}, column {name}:")
                out.extend("    " + line for line in text)
        emit(out)
    return status


# -- footer and schema -----------------------------------------------------
def schema_json(pf: ParquetFile, path: str) -> dict[str, Any]:
    """``pqc schema --json``: the schema elements (enum names) and the table schema."""
    return {"file": path, "schema": [thrift_to_dict(e) for e in pf.metadata.raw.schema],
            "fields": [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in pf.schema_arrow]}


# -- pages -----------------------------------------------------------------
def _pages(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
    heads = pf.page_headers(rg, j)
    text = []
    for n, h in enumerate(heads):
        st = h.statistics
        bounds = "" if st is None else f" min={plain_value(st.min)} max={plain_value(st.max)} nulls={st.null_count}"
        extra = "" if h.num_rows is None else f" rows={h.num_rows} nulls={h.num_nulls}"
        crc = "" if h.crc is None else f" crc=0x{h.crc:08x}"
        text.append(f"page {n}: {h.page_type} at {h.offset} {h.encoding} values={h.num_values}{extra} "
                    f"size={h.compressed_page_size}/{h.uncompressed_page_size}{crc}{bounds}")
    return {"pages": [h.to_dict() for h in heads]}, text


def _dictionary(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
    values = pf.dictionary(rg, j)
    if values is None:
        return {"dictionary": None}, ["no dictionary page"]
    items = plain_value(values.to_pylist())
    return {"dictionary": items}, [f"{len(items)} values"] + [f"{i}: {v}" for i, v in enumerate(items)]


def _column_index(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
    ci = pf.column_index(rg, j)
    if ci is None:
        return {"column_index": None}, ["no column index"]
    d = ci.to_dict()
    text = [f"boundary order {d['boundary_order']}"]
    for n in range(ci.num_pages):
        nulls = "" if d["null_counts"] is None else f" nulls={d['null_counts'][n]}"
        text.append(f"page {n}: " + ("null page" if d["null_pages"][n] else
                                     f"min={d['min_values'][n]} max={d['max_values'][n]}") + nulls)
    return {"column_index": d}, text


def _offset_index(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
    oi = pf.offset_index(rg, j)
    if oi is None:
        return {"offset_index": None}, ["no offset index"]
    d = oi.to_dict()
    ub = d["unencoded_byte_array_data_bytes"]
    text = [f"page {n}: offset={p['offset']} size={p['compressed_page_size']} first row={p['first_row_index']}"
            + ("" if ub is None else f" unencoded bytes={ub[n]}") for n, p in enumerate(d["page_locations"])]
    return {"offset_index": d}, text


def probe_value(text: str, desc: Any) -> Any:
    """A ``--probe`` text as a value of the column's type (int, float, bool, bytes or str)."""
    from decimal import Decimal

    dt = desc.data_type
    phys = desc.physical_type
    if dt.id is TypeId.DECIMAL:
        return Decimal(text)
    if phys in (1, 2) or dt.is_integer or dt.id is TypeId.INT96:
        return int(text)
    if phys in (4, 5) or dt.id in FLOAT_IDS:
        return float(text)
    if phys == 0:
        return text.lower() in ("true", "1")
    if dt.id in (TypeId.BINARY, TypeId.FIXED_SIZE_BINARY):
        return bytes.fromhex(text[4:]) if text.startswith("hex:") else text.encode()
    return text


def _bloom(args: argparse.Namespace) -> Callable[[ParquetFile, int, int], tuple[dict[str, Any], list[str]]]:
    def render(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
        bf = pf.bloom_filter(rg, j)
        chunk = pf.metadata.row_group(rg).column(j)
        if bf is None:
            return {"bloom_filter": None}, ["no Bloom filter"]
        d: dict[str, Any] = {"bloom_filter": {"offset": chunk.bloom_filter_offset,
                                              "length": chunk.bloom_filter_length,
                                              "num_bytes": bf.num_bytes}}
        text = [f"Bloom filter at {chunk.bloom_filter_offset}: {bf.num_bytes} bytes"]
        if args.probe:
            probes = {}
            for raw in args.probe:
                hit = bf.might_contain(probe_value(raw, chunk.descriptor))
                probes[raw] = hit
                text.append(f"{raw}: {'maybe present' if hit else 'absent'}")
            d["probe"] = probes
        return d, text
    return render


def _size_stats(pf: ParquetFile, rg: int, j: int) -> tuple[dict[str, Any], list[str]]:
    chunk = pf.metadata.row_group(rg).column(j)
    ss = chunk.meta.size_statistics
    if ss is None:
        return {"size_statistics": None}, ["no size statistics"]
    d = thrift_to_dict(ss)
    ci = pf.column_index(rg, j)
    if ci is not None and (ci.definition_level_histograms or ci.repetition_level_histograms):
        d["pages"] = {"definition_level_histograms": ci.definition_level_histograms,
                      "repetition_level_histograms": ci.repetition_level_histograms}
    oi = pf.offset_index(rg, j)
    if oi is not None and oi.unencoded_byte_array_data_bytes is not None:
        d.setdefault("pages", {})["unencoded_byte_array_data_bytes"] = oi.unencoded_byte_array_data_bytes
    text = [f"{k}: {v}" for k, v in d.items()]
    return {"size_statistics": d}, text


class _ColumnSize(TypedDict):
    column: str
    compressed: int
    uncompressed: int
    ratio: float | None
    share: float


def cmd_column_size(path: str, args: argparse.Namespace) -> int:
    """Compressed and uncompressed bytes per leaf column over all row groups, and share of the file."""
    with open_file(path, args) as pf:
        md = pf.metadata
        leaves = select_leaves(pf, columns_arg(args))
        sizes = {j: [0, 0] for j in leaves}
        for rg in range(md.num_row_groups):
            for j in leaves:
                c = md.row_group(rg).column(j)
                sizes[j][0] += c.total_compressed_size
                sizes[j][1] += c.total_uncompressed_size
        total = sum(s[0] for s in (sizes[j] for j in range(md.num_columns) if j in sizes)) or 1
        rows: list[_ColumnSize] = [{"column": md.schema.column(j).dotted_path, "compressed": s[0], "uncompressed": s[1],
                 "ratio": round(s[1] / s[0], 3) if s[0] else None,
                 "share": round(s[0] / total, 4)} for j, s in sizes.items()]
        if args.json:
            emit([{"file": path, "columns": rows}])
        else:
            emit([f"{path}:"] + [f"  {r['column']}: {r['compressed']} bytes compressed, {r['uncompressed']} "
                                 f"uncompressed ({100 * r['share']:.1f}% of the selected data)" for r in rows])
    return 0


RENDERERS: dict[str, Callable[[argparse.Namespace], Callable[..., Any]]] = {
    "pages": lambda a: _pages, "dictionary": lambda a: _dictionary, "column-index": lambda a: _column_index,
    "offset-index": lambda a: _offset_index, "bloom-filter": _bloom, "size-stats": lambda a: _size_stats,
}

HELP = {
    "pages": "every page header of every column chunk (types, encodings, sizes, CRCs, statistics)",
    "dictionary": "the dictionary page values of every column chunk",
    "column-index": "the column index (per-page bounds, null pages, boundary order)",
    "offset-index": "the offset index (every data page's location and first row)",
    "bloom-filter": "the Bloom filters; --probe VALUE says whether a value may be in each",
    "size-stats": "the size statistics (unencoded byte-array bytes, level histograms)",
}


def chunk_command(name: str) -> Callable[[str, argparse.Namespace], int]:
    """The per-file function of a per-chunk command."""
    def work(path: str, args: argparse.Namespace) -> int:
        return _per_chunk(path, args, RENDERERS[name](args))
    return work


def footer_command(path: str, args: argparse.Namespace) -> int:
    """``pqc footer``: the whole footer with enum names (indented JSON, or one line with --json)."""
    import json

    with open_file(path, args) as pf:
        d = plain_value({"file": path, **pf.metadata.to_dict()})
    emit([d] if args.json else [json.dumps(d, indent=2)])
    return 0
