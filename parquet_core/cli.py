"""``pqc``: inspect a Parquet file from the command line.

    pqc schema FILE          the Parquet schema tree and the table schema
    pqc meta FILE            footer metadata: row groups, column chunks, statistics
    pqc head FILE [-n N]     the first N rows
    pqc inspect FILE [-n N]  all three
    pqc check FILE... [--json] [--level footer|pages|data]
                             validate files against the spec and their own metadata
                             (exit 0: no errors, 1: errors, 2: a file cannot be read)
    pqc check --list-rules   the rules check applies, as a Markdown table

Encrypted files take keys as ASCII text or ``hex:`` followed by hex digits::

    pqc head f.parquet.encrypted --footer-key 0123456789012345 \
        --column-key double_field:1234567890123450 --aad-prefix tester

Running ``pqc inspect`` with no file shows the sample file shipped in the package.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Any, Sequence

from parquet_core.validation import LEVELS, check, rules_table
from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.encryption.properties import FileDecryptionProperties
from parquet_core.errors import ParquetEncryptionError, ParquetError
from parquet_core.file.reader import ParquetFile
from parquet_core.schema.tree import SchemaNode

__all__ = ["main", "sample_path"]


def sample_path() -> str:
    """Path of the small sample file shipped inside the package."""
    return str(resources.files("parquet_core") / "_data" / "sample.parquet")


def _describe(node: SchemaNode, indent: int, out: list[str]) -> None:
    el = node.element
    rep = Repetition(node.repetition).name.lower()
    if node.is_leaf:
        kind = PhysicalType(el.type).name
        if el.type == PhysicalType.FIXED_LEN_BYTE_ARRAY:
            kind += f"({el.type_length})"
    else:
        kind = "group"
    notes = []
    if el.logicalType is not None:
        set_members = [k for k, v in vars(el.logicalType).items() if v is not None]
        notes.append("logical=" + ",".join(set_members or ["UNKNOWN_MEMBER"]))
    if el.converted_type is not None:
        try:
            notes.append("converted=" + ConvertedType(el.converted_type).name)
        except ValueError:
            notes.append(f"converted={el.converted_type}")
    extra = f" ({'; '.join(notes)})" if notes else ""
    out.append(f"{'  ' * indent}{rep} {kind} {node.name}{extra}")
    for child in node.children:
        _describe(child, indent + 1, out)


def show_schema(pf: ParquetFile) -> str:
    """Render the schema tree and the table schema."""
    out = ["Parquet schema:"]
    root = pf.metadata.schema.root
    out.append(f"message {root.name} {{")
    for child in root.children:
        _describe(child, 1, out)
    out.append("}")
    out.append("Table schema:")
    out.extend(f"  {f}" for f in pf.schema)
    return "\n".join(out)


def show_meta(pf: ParquetFile) -> str:
    """Render the footer metadata."""
    md = pf.metadata
    out = [
        "File metadata:",
        f"  created_by: {md.created_by}",
        f"  format version: {md.format_version}",
        f"  rows: {md.num_rows}   row groups: {md.num_row_groups}   columns: {md.num_columns}",
        f"  footer: {md.footer_size} bytes",
    ]
    for k, v in md.metadata.items():
        text = v.decode("utf-8", "replace")
        out.append(f"  kv {k.decode('utf-8', 'replace')}: {text[:120]}{'...' if len(text) > 120 else ''}")
    for i in range(md.num_row_groups):
        rg = md.row_group(i)
        out.append(f"  row group {i}: {rg.num_rows} rows, {rg.total_byte_size} bytes")
        for j in range(rg.num_columns):
            try:
                d = rg.column(j).to_dict()
            except ParquetEncryptionError as exc:   # a column whose key was not given
                out.append(f"    {md.schema.column(j).dotted_path}: encrypted ({exc})")
                continue
            out.append(
                f"    {d['path']}: {d['type']} {d['codec']} {'/'.join(str(e) for e in d['encodings'])}"
                f" values={d['num_values']} size={d['compressed']}/{d['uncompressed']}"
                f" min={_short(d['min'])} max={_short(d['max'])} nulls={d['null_count']}")
    return "\n".join(out)


def _short(v: Any) -> str:
    if v is None:
        s = "null"
    elif isinstance(v, (bytes, bytearray)):
        s = repr(bytes(v))
    elif hasattr(v, "isoformat"):
        s = v.isoformat()
    else:
        s = str(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _readable(pf: ParquetFile, name: str) -> bool:
    """False when a leaf of top-level field *name* is encrypted with a key we were not given."""
    md = pf.metadata
    if not md.num_row_groups or md.decryptor is None:
        return True
    try:
        for leaf in md.schema.leaves_under(name):
            md.row_group(0).column(leaf)
    except ParquetEncryptionError:
        return False
    return True


def show_head(pf: ParquetFile, n: int) -> str:
    """Render the first *n* rows (columns the reader cannot lay out are listed as skipped)."""
    names = [f.name for f in pf.schema if f.type.name != "nested"]
    skipped = [f.name for f in pf.schema if f.type.name == "nested"]
    locked = [n for n in names if not _readable(pf, n)]
    names = [n for n in names if n not in locked]
    rows: list[dict[str, Any]] = []
    if names and n > 0:
        for batch in pf.iter_batches(batch_size=n, columns=names):
            rows.extend(batch.to_pylist())
            if len(rows) >= n:
                break
    out = [f"First {min(n, len(rows))} rows:"]
    widths = {c: max([len(c)] + [len(_short(r[c])) for r in rows[:n]]) for c in names}
    out.append("  " + " | ".join(c.ljust(widths[c]) for c in names))
    for r in rows[:n]:
        out.append("  " + " | ".join(_short(r[c]).ljust(widths[c]) for c in names))
    if skipped:
        out.append(f"  (columns with an unreadable layout not shown: {', '.join(skipped)})")
    if locked:
        out.append(f"  (encrypted columns without a key not shown: {', '.join(locked)})")
    return "\n".join(out)


def _key_text(text: str) -> bytes:
    """``hex:0a1b...`` as bytes, anything else as its ASCII (UTF-8) bytes."""
    if text.startswith("hex:"):
        try:
            return bytes.fromhex(text[4:])
        except ValueError:
            raise argparse.ArgumentTypeError(f"not hex digits: {text[4:]!r}") from None
    return text.encode("utf-8")


def _column_key(text: str) -> tuple[str, bytes]:
    path, sep, key = text.partition(":")
    if not sep or not path:
        raise argparse.ArgumentTypeError(f"expected COLUMN:KEY, got {text!r}")
    return path, _key_text(key)


def _decryption(args: argparse.Namespace) -> FileDecryptionProperties | None:
    if args.footer_key is None and not args.column_key and args.aad_prefix is None:
        return None
    return FileDecryptionProperties(footer_key=args.footer_key, column_keys=dict(args.column_key),
                                    aad_prefix=args.aad_prefix,
                                    verify_plaintext_footer=not args.no_verify_footer)


def _add_key_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("decryption (keys as ASCII text, or hex:DIGITS)")
    g.add_argument("--footer-key", type=_key_text, help="footer key (also the key of uniformly encrypted columns)")
    g.add_argument("--column-key", type=_column_key, action="append", default=[], metavar="COLUMN:KEY",
                   help="key of one encrypted column, by dotted path (repeatable)")
    g.add_argument("--aad-prefix", type=_key_text, help="AAD prefix the file does not store")
    g.add_argument("--no-verify-footer", action="store_true",
                   help="do not verify a plaintext footer's signature")


def _storage_options(items: Sequence[str]) -> dict[str, Any] | None:
    import json

    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--storage-option takes KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out or None


def _dataset(paths: Sequence[str], options: dict[str, Any] | None, verify: bool, decryption: Any) -> Any:
    """A ParquetDataset when the paths are not one file, else None."""
    from parquet_core.dataset import ParquetDataset
    from parquet_core.file.filesystem import resolve_filesystem

    if len(paths) == 1:
        fs, (p,) = resolve_filesystem(paths, None, options)
        if fs.kind(p) == "file":
            return None
    return ParquetDataset(list(paths), storage_options=options, page_checksum_verification=verify,
                          decryption=decryption)


def _show_dataset(ds: Any, command: str, n: int) -> list[str]:
    parts = []
    if command in ("schema", "inspect"):
        parts.append("Dataset schema:\n" + "\n".join(f"  {f}" for f in ds.schema))
    if command in ("meta", "inspect"):
        lines = [f"Dataset: {len(ds.files)} files, partition columns {ds.partition_names}"]
        lines.extend(f"  {f}" for f in ds.files[:20])
        if len(ds.files) > 20:
            lines.append(f"  ... {len(ds.files) - 20} more")
        parts.append("\n".join(lines))
    if command in ("head", "inspect"):
        rows = []
        for batch in ds.iter_batches(batch_size=n):
            rows.extend(batch.to_pylist())
            if len(rows) >= n:
                break
        parts.append(f"First {min(n, len(rows))} rows:\n" + "\n".join(
            "  " + ", ".join(f"{k}={_short(v)}" for k, v in r.items()) for r in rows[:n]))
    return parts


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pqc`` console script."""
    parser = argparse.ArgumentParser(prog="pqc", description="Inspect Parquet files.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("schema", "meta", "head", "inspect"):
        p = sub.add_parser(name)
        p.add_argument("file", nargs="*" if name == "inspect" else "+",
                       help="a Parquet file, folder, glob or URL (s3://, gs://, memory://...), or several "
                            "(inspect defaults to the bundled sample)")
        p.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                       help="fsspec storage option for URLs (VALUE parsed as JSON when it can be)")
        p.add_argument("--no-verify-checksums", action="store_true",
                       help="do not verify page CRCs")
        if name in ("head", "inspect"):
            p.add_argument("-n", type=int, default=10, help="rows to show (default 10)")
        _add_key_options(p)
    p = sub.add_parser("check", help="validate files against the spec and their own metadata")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    p.add_argument("--level", choices=LEVELS, default="data",
                   help="footer: metadata only; pages: + page headers, indexes, Bloom headers; "
                        "data: + every value (default)")
    p.add_argument("--list-rules", action="store_true", help="print the rules as a Markdown table and exit")
    _add_key_options(p)
    args = parser.parse_args(argv)
    if args.command == "check":
        return _check(parser, args)
    paths = args.file or [sample_path()]
    path = paths[0] if len(paths) == 1 else " ".join(paths)
    try:
        decryption = _decryption(args)
        options = _storage_options(args.storage_option)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    try:
        dataset = _dataset(paths, options, not args.no_verify_checksums, decryption)
        if dataset is not None:
            parts = _show_dataset(dataset, args.command, getattr(args, "n", 10))
            print("\n\n".join(parts))
            return 0
        with ParquetFile(paths[0], page_checksum_verification=not args.no_verify_checksums,
                         decryption=decryption, storage_options=options) as pf:
            parts = []
            if args.command in ("schema", "inspect"):
                parts.append(show_schema(pf))
            if args.command in ("meta", "inspect"):
                parts.append(show_meta(pf))
            if args.command in ("head", "inspect"):
                parts.append(show_head(pf, args.n))
    except (ParquetError, OSError) as exc:
        print(f"pqc: {path}: {exc}", file=sys.stderr)
        for note in getattr(exc, "__notes__", []):
            print(f"pqc:   {note}", file=sys.stderr)
        return 1
    try:
        print("\n\n".join(parts))
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stdout = None  # type: ignore[assignment]
    return 0


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``pqc check``: 0 when no file has an error, 1 when one has, 2 when one cannot be read."""
    import json

    if args.list_rules:
        print(rules_table())
        return 0
    if not args.files:
        parser.error("check needs at least one FILE (or --list-rules)")
    try:
        decryption = _decryption(args)
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    status = 0
    for path in args.files:
        report = check(path, level=args.level, decryption=decryption)
        if not report.readable:
            status = 2
        elif not report.ok:
            status = max(status, 1)
        try:
            print(json.dumps(report.to_dict()) if args.json else str(report))
            sys.stdout.flush()
        except BrokenPipeError:
            sys.stdout = None  # type: ignore[assignment]
            break
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
