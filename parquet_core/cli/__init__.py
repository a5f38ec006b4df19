"""``pqc``: inspect, validate and rewrite Parquet files from the command line.

    pqc schema FILE...        the Parquet schema tree and the table schema
    pqc meta FILE...          footer summary: row groups, column chunks, statistics
    pqc footer FILE...        the whole footer, every field, enums by name (JSON)
    pqc head FILE [-n N]      the first N rows;  pqc cat FILE  every row
    pqc inspect [FILE]        schema, meta and head (the bundled sample without FILE)
    pqc pages FILE...         every page header of every column chunk
    pqc dictionary FILE...    dictionary page values
    pqc column-index FILE...  per-page bounds;  pqc offset-index FILE...  page locations
    pqc bloom-filter FILE... [--probe VALUE]
    pqc size-stats FILE...    size statistics;  pqc column-size FILE...  bytes per column
    pqc check FILE... [--json] [--level footer|pages|data] [--target spark-3.5,...]
                              validate (exit 0 / 1 errors / 2 unreadable)
    pqc rewrite IN OUT [--compression C --encoding ... --row-group-size N ...]
    pqc merge IN... OUT       files with one schema into one
    pqc compat [--readers R,...] [--features GLOB] [--markdown/--json/--html FILE]
                              which readers read which format features, measured
    pqc --version

Every FILE may be a file, a folder (its data files, walked recursively, litter
such as ``_SUCCESS`` and ``.crc`` skipped), a glob or a URL (``s3://``...,
with ``--storage-option KEY=VALUE``).  Structured commands take ``--json``
(one object per line) and ``--columns``.
Encrypted files take ``--footer-key KEY``, ``--column-key COLUMN:KEY`` and
``--aad-prefix`` (ASCII text or ``hex:DIGITS``), or ``--kms-class
module:Class`` with ``--kms-conf KEY=VALUE`` for keys kept in a KMS.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Any, Sequence

from parquet_core.cli import inspect as _inspect
from parquet_core.cli.common import (
    OutputClosed,
    add_columns_option,
    add_key_options,
    add_storage_option,
    cli_message,
    columns_arg,
    decryption_for,
    each_file,
    emit,
    expand_files,
    report_error,
    storage_options_arg,
)
from parquet_core.cli.compat import add_compat_parser, compat_command
from parquet_core.cli.show import (
    _dataset,
    _show_dataset,
    _storage_options,
    sample_path,
    show_head,
    show_meta,
    show_schema,
)
from parquet_core.cli.write import add_writer_options, merge_command, rewrite_command
from parquet_core.errors import ParquetError
from parquet_core.file.reader import ParquetFile
from parquet_core.validation import LEVELS, check, rules_table

__all__ = ["main", "sample_path", "show_schema", "show_meta", "show_head", "build_parser"]


def _version() -> str:
    from parquet_core import __version__
    return f"pqc (parquet_core) {__version__}"


def _file_arg(p: argparse.ArgumentParser, many: bool = True) -> None:
    p.add_argument("files", nargs="+" if many else 1, metavar="FILE",
                   help="Parquet files, folders (walked recursively, litter skipped), globs or URLs "
                        "(s3://, gs://, memory://...)")
    add_storage_option(p)


def build_parser() -> argparse.ArgumentParser:
    """The ``pqc`` argument parser (every subcommand with its ``--help``)."""
    parser = argparse.ArgumentParser(prog="pqc", description="Inspect, validate and rewrite Parquet files.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    helps = {"schema": "the Parquet schema tree and the table schema",
             "meta": "footer summary: row groups, column chunks, statistics",
             "head": "the first rows", "cat": "every row", "inspect": "schema, meta and head"}
    for name in ("schema", "meta", "head", "cat", "inspect"):
        p = sub.add_parser(name, help=helps[name], description=helps[name])
        p.add_argument("file", nargs="*" if name == "inspect" else "+",
                       help="a Parquet file, folder, glob or URL (s3://, gs://, memory://...), or several "
                            "(inspect defaults to the bundled sample)")
        add_storage_option(p)
        p.add_argument("--no-verify-checksums", action="store_true", help="do not verify page CRCs")
        if name in ("head", "inspect"):
            p.add_argument("-n", type=int, default=10, help="rows to show (default 10)")
        if name != "inspect":
            p.add_argument("--json", action="store_true", help="JSON, one object per line")
        if name in ("head", "cat"):
            add_columns_option(p)
        add_key_options(p)
    p = sub.add_parser("footer", help="the whole footer with enum names, as JSON",
                       description="The whole footer (FileMetaData), every set field, enums by name; "
                                   "indented JSON, or one line per file with --json.")
    _file_arg(p)
    p.add_argument("--json", action="store_true", help="one compact JSON object per file")
    add_key_options(p)
    for name, text in _inspect.HELP.items():
        p = sub.add_parser(name, help=text, description=text)
        _file_arg(p)
        p.add_argument("--json", action="store_true", help="one JSON object per column chunk, per line")
        add_columns_option(p)
        p.add_argument("--row-group", type=int, help="only this row group")
        p.add_argument("--no-verify-checksums", action="store_true", help="do not verify page CRCs")
        if name == "bloom-filter":
            p.add_argument("--probe", action="append", default=[], metavar="VALUE",
                           help="a value to look up, read as the column's type (repeatable)")
        add_key_options(p)
    p = sub.add_parser("column-size", help="compressed and uncompressed bytes per column",
                       description="Compressed and uncompressed bytes of every leaf column over all row groups.")
    _file_arg(p)
    p.add_argument("--json", action="store_true", help="one JSON object per file")
    add_columns_option(p)
    add_key_options(p)
    p = sub.add_parser("check", help="validate files against the spec and their own metadata")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="Parquet files, folders (every data file below), globs or URLs")
    add_storage_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    p.add_argument("--level", choices=LEVELS, default="data",
                   help="footer: metadata only; pages: + page headers, indexes, Bloom headers; "
                        "data: + every value (default)")
    p.add_argument("--list-rules", action="store_true", help="print the rules as a Markdown table and exit")
    p.add_argument("--target", default=None, metavar="READER[-VERSION],...",
                   help="readers the file must work with (pyarrow, duckdb, polars, fastparquet, spark; "
                        "e.g. spark-3.5,pyarrow-15): a compat.<reader> warning for each feature the file "
                        "uses that the reader does not read (docs/compat.md)")
    p.add_argument("--max-page-bytes", type=int, default=None, metavar="N",
                   help="check pages up to N bytes (default: the reader's max_page_bytes)")
    p.add_argument("--max-decoded-bytes", type=int, default=None, metavar="N",
                   help="check chunks that decode to up to N bytes (default: the reader's max_decoded_bytes)")
    add_key_options(p)
    p = sub.add_parser("rewrite", help="copy a file with a new codec, encodings, sizes, indexes, encryption",
                       description="Rewrite one file row group by row group (bounded memory) into OUT, "
                                   "atomically (OUT may be IN).")
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    add_writer_options(p)
    add_key_options(p)
    p = sub.add_parser("merge", help="files with one schema into one file",
                       description="Concatenate files that share one schema into OUT, row group by row group.")
    p.add_argument("inputs", nargs="+", metavar="IN")
    p.add_argument("output", metavar="OUT")
    p.add_argument("--union-schema", action="store_true",
                   help="merge files whose schemas differ: columns missing from a file are null there, "
                        "int32/int64 and float32/float64 widen; other conflicts are errors")
    add_writer_options(p)
    add_key_options(p)
    add_compat_parser(sub)
    return parser


#: exit status when the reader of standard output went away (``pqc cat f | head -1``):
#: 128 + SIGPIPE, what a shell reports for ``cat`` or ``yes`` stopped the same way
EXIT_OUTPUT_CLOSED = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pqc`` console script.

    Output piped into a reader that stops early (``head``) ends every command
    quietly with status 141, no traceback: the rest of the work is not done,
    so ``pqc check`` does not claim 0 for files it never checked.
    """
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()   # here, not at interpreter exit, where a closed pipe cannot be caught
    except (OutputClosed, BrokenPipeError):
        _discard_stdout()
        return EXIT_OUTPUT_CLOSED


def _discard_stdout() -> None:
    """Point file descriptor 1 at the null device, so the buffered rest of the output is
    dropped at exit instead of failing again (a captured stdout without a descriptor is left)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


@functools.lru_cache(maxsize=1)
def _parser() -> argparse.ArgumentParser:
    """:func:`build_parser`, built once per process: parsing leaves a parser as it was, and
    building every subcommand's options costs more than checking a small file (a program
    calling :func:`main` once per file, like the fuzzer, paid it every time)."""
    return build_parser()


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    cmd = args.command
    try:
        if cmd == "check":
            return _check(parser, args)
        if cmd == "compat":
            return compat_command(args)
        if cmd == "footer":
            return each_file(args.files, lambda f: _inspect.footer_command(f, args), storage_options_arg(args))
        if cmd in _inspect.HELP:
            work = _inspect.chunk_command(cmd)
            return each_file(args.files, lambda f: work(f, args), storage_options_arg(args))
        if cmd == "column-size":
            return each_file(args.files, lambda f: _inspect.cmd_column_size(f, args), storage_options_arg(args))
        if cmd == "rewrite":
            return each_file([args.output], lambda f: rewrite_command(args), expand=False)
        if cmd == "merge":
            return each_file([args.output], lambda f: merge_command(args), expand=False)
    except (TypeError, ValueError) as exc:   # option values the parser could not judge
        parser.error(cli_message(str(exc)))
    if getattr(args, "json", False) or cmd == "cat":
        try:
            options = storage_options_arg(args)
        except ValueError as exc:
            parser.error(str(exc))
        if cmd in ("head", "cat"):
            return _rows_of_sources(args, options)
        return each_file(args.file, lambda f: _rows_or_json(f, args), options)
    return _show(parser, args)


def _rows_of_sources(args: argparse.Namespace, options: dict | None) -> int:
    """``head``/``cat`` rows (``--json`` or ``key=value`` lines) of every FILE argument: a
    folder is read as the dataset it is (as ``pqc head FOLDER`` shows it: its Hive partition
    columns included, one schema over its files, the same rows ``pc.read_table(folder)``
    gives); a file or a glob file by file."""
    from parquet_core.file.filesystem import resolve_filesystem

    status = 0
    for arg in args.file:
        try:
            fs, (path,) = resolve_filesystem([arg], None, options)
            folder = fs.kind(path) == "directory"
        except (ParquetError, OSError, ValueError, ImportError):
            folder = False          # each_file below reports what is wrong with it
        if not folder:
            status = max(status, each_file([arg], lambda f: _rows_or_json(f, args), options))
            continue
        try:
            dataset = _dataset([arg], options, not args.no_verify_checksums, decryption_for(args, arg))
            _emit_rows(dataset.iter_batches(batch_size=_batch_rows(args), columns=columns_arg(args)), args)
        except (ParquetError, OSError, ValueError, TypeError, IndexError) as exc:
            report_error(arg, exc)
            status = max(status, 1)
    return status


def _batch_rows(args: argparse.Namespace) -> int:
    return min(args.n, 65536) if args.command == "head" and args.n else 65536


def _emit_rows(batches: Any, args: argparse.Namespace) -> None:
    """Print the rows of *batches* (the first ``-n`` for ``head``)."""
    import json

    left = args.n if args.command == "head" else None
    for batch in batches:
        rows = batch.to_pylist()[:left] if left is not None else batch.to_pylist()
        emit(rows if args.json else [", ".join(f"{k}={json.dumps(v, default=str)}"
                                               for k, v in r.items()) for r in rows])
        if left is not None:
            left -= len(rows)
            if left <= 0:
                break


def _rows_or_json(path: str, args: argparse.Namespace) -> int:
    """``schema``/``meta``/``head``/``cat`` of one file, as JSON or (``cat``) row lines."""
    with _inspect.open_file(path, args) as pf:
        if args.command == "schema":
            emit([_inspect.schema_json(pf, path)])
        elif args.command == "meta":
            emit([{"file": path, **pf.metadata.to_dict()}])
        else:
            _emit_rows(pf.iter_batches(batch_size=_batch_rows(args), columns=columns_arg(args)), args)
    return 0


def _show(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """The text form of ``schema``, ``meta``, ``head`` and ``inspect`` (files, folders, URLs)."""
    paths = args.file or [sample_path()]
    path = paths[0] if len(paths) == 1 else " ".join(paths)
    try:
        decryption = decryption_for(args, paths[0])
        options = _storage_options(args.storage_option)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    try:
        dataset = _dataset(paths, options, not args.no_verify_checksums, decryption)
        if dataset is not None:
            emit(["\n\n".join(_show_dataset(dataset, args.command, getattr(args, "n", 10)))])
            return 0
        with ParquetFile(paths[0], page_checksum_verification=not args.no_verify_checksums,
                         decryption=decryption, storage_options=options) as pf:
            parts = []
            if args.command in ("schema", "inspect"):
                parts.append(show_schema(pf))
            if args.command in ("meta", "inspect"):
                parts.append(show_meta(pf))
            if args.command in ("head", "inspect"):
                parts.append(show_head(pf, args.n, columns_arg(args) if args.command == "head" else None))
    except (ParquetError, OSError) as exc:
        report_error(path, exc)
        return 1
    emit(["\n\n".join(parts)])
    return 0


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pqc check``: 0 when no file has an error, 1 when one has, 2 when one cannot be read."""
    if args.list_rules:
        emit([rules_table()])
        return 0
    if not args.files:
        parser.error("check needs at least one FILE (or --list-rules)")
    if args.target:
        from parquet_core.validation.compat import parse_target
        try:
            for t in args.target.split(","):
                parse_target(t)
        except ValueError as exc:
            parser.error(str(exc))
    try:
        options = storage_options_arg(args)
    except ValueError as exc:
        parser.error(str(exc))
    for flag, value in (("--max-page-bytes", args.max_page_bytes), ("--max-decoded-bytes", args.max_decoded_bytes)):
        if value is not None and value <= 0:
            parser.error(f"{flag} must be a positive number of bytes, not {value}")
    status = 0

    def one(path: str) -> None:
        nonlocal status
        try:
            decryption = decryption_for(args, path)
        except (TypeError, ValueError) as exc:
            parser.error(str(exc))
        report = check(path, level=args.level, decryption=decryption, storage_options=options,
                       targets=args.target, max_page_bytes=args.max_page_bytes,
                       max_decoded_bytes=args.max_decoded_bytes)
        if not report.readable:
            status = 2
        elif not report.ok:
            status = max(status, 1)
        emit([report.to_dict() if args.json else cli_message(str(report))])

    for arg in args.files:
        try:
            paths = expand_files(arg, options)
        except (ParquetError, OSError, ValueError, ImportError):
            paths = [arg]      # checked as given: the report says why it cannot be read (status 2)
        for path in paths:
            one(path)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
