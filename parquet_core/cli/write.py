"""``pqc rewrite`` and ``pqc merge``: copy files through the writer with new options.

Both stream: one row group is read, re-encoded and written at a time (rows
are buffered only up to ``--row-group-size`` when it asks for bigger groups
than the input has), so memory stays bounded by a row group, not a file.
The output goes through the writer's temporary-file sink and is renamed into
place only when complete, so a failed run leaves no partial file and an
in-place rewrite (``OUT`` = ``IN``) is safe.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Iterator

from parquet_core.cli.common import add_encrypt_options, decryption_for, encryption_from
from parquet_core.dataset.unify import SchemaUnifier, conform
from parquet_core.file.reader import ParquetFile
from parquet_core.file.writer import ParquetWriter
from parquet_core.options import WRITER_DEFAULTS
from parquet_core.options.values import SortingColumn
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Table

__all__ = ["add_writer_options", "rewrite_command", "merge_command"]


def add_writer_options(p: argparse.ArgumentParser) -> None:
    """The writer options ``rewrite`` and ``merge`` accept."""
    g = p.add_argument_group("output layout")
    g.add_argument("--compression", help="codec of every column (none, snappy, gzip, zstd, lz4, brotli...); "
                                         f"default: {WRITER_DEFAULTS['compression']}")
    g.add_argument("--compression-level", type=int)
    g.add_argument("--encoding", action="append", default=[], metavar="[COLUMN=]ENCODING",
                   help="value encoding (plain, delta_binary_packed, byte_stream_split...), for every "
                        "column or one (repeatable); such columns are written without a dictionary")
    g.add_argument("--no-dictionary", action="store_true", help="write no dictionary pages")
    g.add_argument("--page-size", type=int, metavar="BYTES", help="target data page size")
    g.add_argument("--page-version", choices=("1.0", "2.0"), help="data page version")
    g.add_argument("--row-group-size", type=int, metavar="ROWS", help="rows per row group")
    g.add_argument("--page-index", action=argparse.BooleanOptionalAction, default=True,
                   help="write column and offset indexes (default: yes)")
    g.add_argument("--bloom-filter", action="append", default=[], metavar="COLUMN[:FPP]",
                   help="write a Bloom filter for COLUMN (optional false-positive rate; repeatable)")
    g.add_argument("--page-checksum", action="store_true", help="write page CRCs")
    add_encrypt_options(p)


def writer_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """ParquetWriter keyword arguments from the command's options."""
    kw: dict[str, Any] = {"write_page_index": args.page_index, "write_page_checksum": args.page_checksum}
    if args.compression is not None:
        kw["compression"] = None if args.compression.lower() in ("none", "uncompressed") else args.compression
    if args.compression_level is not None:
        kw["compression_level"] = args.compression_level
    if args.encoding:
        per: dict[str | None, str] = {}
        for item in args.encoding:
            col, eq, enc = item.rpartition("=")
            per[col if eq else None] = enc
        kw["column_encoding"] = per[None] if list(per) == [None] else per
        if None in per:
            kw["use_dictionary"] = False
        else:   # the per-column list of dictionary columns needs the schema: see _finish_kwargs
            kw["_no_dict_for"] = [c for c in per if c is not None]
    if args.no_dictionary:
        kw["use_dictionary"] = False
        kw.pop("_no_dict_for", None)
    if args.page_size is not None:
        kw["data_page_size"] = args.page_size
    if args.page_version is not None:
        kw["data_page_version"] = args.page_version
    if args.row_group_size is not None:
        kw["row_group_size"] = args.row_group_size
    if args.bloom_filter:
        bloom: dict[str | None, Any] = {}
        for item in args.bloom_filter:
            col, sep, fpp = item.partition(":")
            bloom[col] = {"fpp": float(fpp)} if sep else True
        kw["bloom_filter_options"] = bloom
    enc = encryption_from(args)
    if enc is not None:
        kw["encryption"] = enc
    return kw


def _finish_kwargs(kw: dict[str, Any], pf: ParquetFile) -> dict[str, Any]:
    """Resolve options that need the schema (dictionary off for columns given an encoding)."""
    no_dict = kw.pop("_no_dict_for", None)
    if no_dict is not None:
        leaves = [d.dotted_path for d in pf.metadata.schema]
        kw["use_dictionary"] = [c for c in leaves if c not in no_dict]
    return kw


def _row_groups(files: list[ParquetFile], target: int | None, conform_to: Any = None) -> Iterator[Table]:
    """Row groups of every file in order; with *target*, regrouped to that many rows each;
    with *conform_to* (a unified schema), each brought to it (missing columns null, widened types).

    At most *target* rows plus one input row group are held at a time.
    """
    pending: list[Table] = []
    held = 0
    for pf in files:
        for i in range(pf.num_row_groups):
            table = pf.read_row_group(i)
            if conform_to is not None:
                names = set(table.schema.names)
                table = Table(conform_to, [conform(table.column(f.name) if f.name in names else None,
                                                   f, table.num_rows) for f in conform_to], table.num_rows)
            if target is None:
                yield table
                continue
            pending.append(table)
            held += table.num_rows
            while held >= target:
                whole = Table.concat(pending) if len(pending) > 1 else pending[0]
                yield whole.slice_rows(0, target)
                rest = whole.slice_rows(target, whole.num_rows)
                pending, held = ([rest], rest.num_rows) if rest.num_rows else ([], 0)
    if held:
        yield Table.concat(pending) if len(pending) > 1 else pending[0]


def _sorting_of(files: list[ParquetFile]) -> tuple[SortingColumn, ...]:
    """The ``sorting_columns`` every input row group declares (empty when they differ)."""
    seen: set[tuple[SortingColumn, ...]] = set()
    for pf in files:
        for i in range(pf.num_row_groups):
            raw = pf.metadata.row_group(i).raw.sorting_columns or ()
            seen.add(tuple(SortingColumn(s.column_idx, bool(s.descending), bool(s.nulls_first)) for s in raw))
    return seen.pop() if len(seen) == 1 else ()


def _column_kv(files: list[ParquetFile]) -> dict[str, dict[str, str]]:
    """Per-column key/value metadata, when every chunk of that column in every input agrees."""
    out: dict[str, dict[str, str] | None] = {}
    for pf in files:
        schema = pf.metadata.schema
        for i in range(pf.num_row_groups):
            group = pf.metadata.row_group(i)
            for j in range(len(schema)):
                raw = group.column(j).raw.meta_data
                kv = {e.key: e.value or "" for e in (raw.key_value_metadata or [])} if raw else {}
                name = schema.column(j).dotted_path
                if name not in out:
                    out[name] = kv
                elif out[name] != kv:
                    raise ValueError(f"column {name!r} carries different key/value metadata in different "
                                     "row groups; pqc cannot keep both in one chunk option")
    return {k: v for k, v in out.items() if v}


def _carried(files: list[ParquetFile], kw: dict[str, Any], regrouped: bool, union: bool) -> None:
    """Keep what the inputs' footers say beyond the data: key/value metadata (the writer
    rewrites ``ARROW:schema`` itself), column key/value metadata and ``sorting_columns``."""
    kv: dict[bytes, bytes] = {}
    for pf in files:
        for k, v in (pf.metadata.metadata or {}).items():
            if k == b"ARROW:schema":
                continue
            if k in kv and kv[k] != v:
                raise ValueError(f"the inputs disagree on key/value metadata {k.decode(errors='replace')!r}")
            kv[k] = v
    if kv and "key_value_metadata" not in kw:
        kw["key_value_metadata"] = kv
    column_kv = _column_kv(files)
    if column_kv and "column_key_value_metadata" not in kw:
        kw["column_key_value_metadata"] = column_kv
    sorting = _sorting_of(files)
    if not sorting or "sorting_columns" in kw:
        return
    if regrouped or union:
        # Input groups are each sorted, but a group made of several is sorted only if their
        # boundaries happen to be: not checked, so not claimed (and said, not dropped silently).
        print("pqc: note: the inputs' sorting_columns are not carried: "
              + ("--row-group-size regroups the rows" if regrouped else "--union-schema changes the columns"),
              file=sys.stderr)
        return
    kw["sorting_columns"] = sorting


def _copy(files: list[ParquetFile], out: str, args: argparse.Namespace, schema: Schema | None = None,
          conform_to: Any = None) -> int:
    kw = _finish_kwargs(writer_kwargs(args), files[0])
    target = kw.get("row_group_size")
    _carried(files, kw, target is not None, schema is not None)
    with ParquetWriter(out, schema or files[0].schema_arrow, **kw) as writer:
        for table in _row_groups(files, target, conform_to):
            writer.write_table(table)
    return 0


def rewrite_command(args: argparse.Namespace) -> int:
    """``pqc rewrite IN OUT``: one file with new codecs, encodings, page and group sizes, indexes,
    Bloom filters or encryption."""
    with ParquetFile(args.input, decryption=decryption_for(args, args.input)) as pf:
        return _copy([pf], args.output, args)


def merge_command(args: argparse.Namespace) -> int:
    """``pqc merge IN... OUT``: files with one schema into one file, row groups in input order."""
    files: list[ParquetFile] = []
    try:
        for path in args.inputs:
            files.append(ParquetFile(path, decryption=decryption_for(args, path)))
        first = files[0].schema_arrow
        if getattr(args, "union_schema", False):
            unifier = SchemaUnifier()
            for path, pf in zip(args.inputs, files):
                unifier.add(pf.schema_arrow, path)
            union = unifier.schema()
            if all(pf.schema_arrow == union for pf in files):
                return _copy(files, args.output, args)
            return _copy(files, args.output, args, schema=union, conform_to=union)
        for path, pf in zip(args.inputs[1:], files[1:]):
            if pf.schema_arrow != first:
                raise ValueError(f"{path} has another schema than {args.inputs[0]}:\n  {pf.schema_arrow}\n"
                                 f"  vs {first}\n(--union-schema merges them: missing columns become "
                                 "null, int32/int64 and float32/float64 widen)")
        return _copy(files, args.output, args)
    finally:
        for pf in files:
            pf.close()
