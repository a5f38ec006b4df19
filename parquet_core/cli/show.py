"""``pqc schema``, ``meta``, ``head`` and ``inspect``: the renderers of the first commands.

(The command line itself is described in :mod:`parquet_core.cli`.)
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Sequence

from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.errors import ParquetEncryptionError
from parquet_core.file.reader import ParquetFile
from parquet_core.schema.tree import SchemaNode
from parquet_core.schema.types import TypeId

__all__ = ["sample_path", "show_schema", "show_meta", "show_head"]


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
    out.extend(f"  {f}" for f in pf.schema_arrow)
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


def show_head(pf: ParquetFile, n: int, columns: Sequence[str] | None = None) -> str:
    """Render the first *n* rows (columns the reader cannot lay out are listed as skipped)."""
    fields = [f for f in pf.schema_arrow if columns is None or f.name in columns]
    names = [f.name for f in fields if f.type.id is not TypeId.NESTED]
    skipped = [f.name for f in fields if f.type.id is TypeId.NESTED]
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


def _storage_options(items: Sequence[str]) -> dict[str, Any] | None:
    from parquet_core.cli.common import parse_storage_options

    return parse_storage_options(items)


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
        if ds.stale_metadata:
            lines.append(f"Stale _metadata entries (ignored: the listing decides the files): "
                         f"{len(ds.stale_metadata)}")
            lines.extend(f"  {k}: {v}" for k, v in sorted(ds.stale_metadata.items())[:20])
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
