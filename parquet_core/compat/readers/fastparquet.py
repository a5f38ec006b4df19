"""fastparquet (pandas output): nulls of numeric columns come back as NaN, which is not a difference."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.canonical import from_python

LOOSE = True


def version() -> str:
    import fastparquet
    return fastparquet.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import fastparquet
    # an encrypted file is handed over as it is: fastparquet has no modular encryption (no keys to give)
    df = fastparquet.ParquetFile(path).to_pandas()
    flat = {str(name): [from_python(v) for v in df[name].tolist()] for name in df.columns}
    return _regroup(flat)


#: dotted column names as a tree: a group maps names to subgroups or to a leaf's values
_Group = dict[str, "_Group | list[Any]"]


def _regroup(flat: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Struct fields come back as dotted columns (``v.a``, ``v.b``): put them back into dicts.

    A row whose fields are all null gives ``None`` for the struct: pandas keeps no
    struct validity, so a null struct and a struct of nulls look alike (a difference
    the comparison then reports, as it is one)."""
    out: dict[str, list[Any]] = {}
    tree: _Group = {}
    for name, values in flat.items():
        if "." not in name:
            out[name] = values
            continue
        node = tree
        *parents, leaf = name.split(".")
        for p in parents:
            child = node.setdefault(p, {})
            if not isinstance(child, dict):
                raise ValueError(f"fastparquet returned {p!r} both as a column and as a struct in {name!r}")
            node = child
        node[leaf] = values
    for name, group in tree.items():
        out[name] = _rows(group) if isinstance(group, dict) else group
    return out


def _rows(node: _Group) -> list[Any]:
    cols = {k: (_rows(v) if isinstance(v, dict) else v) for k, v in node.items()}
    n = len(next(iter(cols.values())))
    rows: list[dict[str, Any] | None] = []
    for i in range(n):
        row = {k: c[i] for k, c in cols.items()}
        rows.append(None if all(v is None for v in row.values()) else row)
    return rows
