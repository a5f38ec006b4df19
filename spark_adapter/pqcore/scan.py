"""Planning a ``format("pqcore")`` scan: the load's filter per file, and the input partitions.

The filter is the ``filter`` option (SQL-like text) ANDed with the
``filters`` option (JSON DNF), in negation normal form.  Both are options,
part of the DataFrame's definition, so pruning with them is safe: no later
query can reuse it with a different predicate (unlike Spark's
``pushFilters`` results, see ``reader.py``).

Per file, partition columns and filter columns missing from the file are
known values (a folder value, or null); :func:`~spark_adapter.core.sql_filter.specialize`
replaces them, which decides whole files, and the rest becomes a
parquet_core expression (row groups, pages and rows).

Partitions are sized like Spark's file scans: a file larger than
``maxPartitionBytes`` (default 128 MiB) is split by row groups, files and
pieces are packed into ``max(minPartitions, total / maxPartitionBytes)``
tasks (``minPartitions`` defaults to the driver's CPU count), balancing
bytes, with ``openCostInBytes`` (4 MiB) added per piece.  With a filter,
the footers are read on the driver and row groups the filter rules out
never become part of a task; the bytes a piece costs are those left after
pruning.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from spark_adapter.core.crypto_options import open_parquet
from spark_adapter.core.filters import dnf_to_tree, parse_filters
from spark_adapter.core.sql_filter import columns_of, nnf, parse_filter, specialize, to_expression

__all__ = ["ScanFilter", "FilePredicate", "Piece", "ambiguous_column", "plan_pieces", "pack"]

from parquet_core.errors import add_note
from spark_adapter.pqcore.options import DEFAULT_MAX_PARTITION_BYTES, DEFAULT_OPEN_COST  # noqa: E402


def field_type(struct: Any, dotted: str) -> Any:
    """The Spark type at a dotted path of *struct* (names case-insensitive), or None."""
    from pyspark.sql.types import StructType

    typ = struct
    for part in dotted.split("."):
        if not isinstance(typ, StructType):
            return None
        match = [f for f in typ.fields if f.name == part] or \
            [f for f in typ.fields if f.name.lower() == part.lower()]
        if not match:
            return None
        typ = match[0].dataType
    return typ


def zone_dependent(tree: tuple | None, spark_types: Any) -> bool:
    """Whether evaluating *tree* needs a time zone: it names a ``timestamp`` (local time
    zone) column, or holds a ``TIMESTAMP '...'`` literal."""
    from pyspark.sql.types import TimestampType

    from spark_adapter.core.sql_filter import Literal, columns_of

    if tree is None:
        return False
    if any(isinstance(field_type(spark_types, c), TimestampType) for c in columns_of(tree)):
        return True

    def has_timestamp(node: Any) -> bool:
        if isinstance(node, Literal):
            return node.kind == "timestamp"
        if isinstance(node, (tuple, list)):
            return any(has_timestamp(k) for k in node)
        return False

    return has_timestamp(tree)


class ScanFilter:
    """The load's predicate (None when neither option is given) and its per-file forms."""

    def __init__(self, options: Any, time_zone: str = "UTC") -> None:
        trees = [t for t in (parse_filter(options.get("filter")), dnf_to_tree(parse_filters(options.get("filters"))))
                 if t is not None]
        self.time_zone = time_zone
        self.tree = None if not trees else nnf(trees[0] if len(trees) == 1 else ("and", trees))
        self.columns = set() if self.tree is None else columns_of(self.tree)

    def __bool__(self) -> bool:
        return self.tree is not None

    def and_tree(self, tree: tuple) -> ScanFilter:
        """A copy that also requires *tree* (an NNF tree, e.g. pushed filters)."""
        import copy

        out = copy.copy(self)
        out.tree = tree if self.tree is None else ("and", [self.tree, tree])
        out.columns = columns_of(out.tree)
        return out

    def for_file(self, file_schema: Any, spark_types: Any, partition_values: dict[str, Any]) -> FilePredicate:
        """The filter for one file.

        *file_schema* is the file's ``pc.Schema``; *spark_types* the Spark StructType giving
        the filter columns' types (the load's schema, then the file's own); *partition_values*
        maps the file's partition columns to their typed values.
        """
        from spark_adapter.core.arrow_filter import UNORDERED, weaken
        from spark_adapter.core.types import to_spark_schema

        if self.tree is None:
            return FilePredicate(True)
        names = list(file_schema.names)
        resolved: dict[str, str] = {}
        known = {k.lower(): v for k, v in partition_values.items()}
        for column in self.columns:
            head, _, rest = column.partition(".")
            if head.lower() in known:
                continue
            found = _resolve(names, head)
            path = None if found is None else found + ("." + rest if rest else "")
            if path is None or (rest and _file_type(file_schema, path) is None):
                known[column.lower()] = None    # missing from this file: null, as Spark reads it
            else:
                resolved[column] = path
        file_struct: list[Any] = []

        def type_of(column: str) -> Any:
            typ = field_type(spark_types, column)
            if typ is None:
                if not file_struct:
                    file_struct.append(to_spark_schema(file_schema))
                typ = field_type(file_struct[0], column)
            if typ is None:
                raise ValueError(f"pqcore: filter: unknown column {column!r}")
            return typ

        tree = specialize(self.tree, known, type_of, self.time_zone)
        if tree is True or tree is False:
            return FilePredicate(tree)

        def unordered(leaf: tuple) -> bool:
            if leaf[0] in ("cmp", "in") and _spark_nan_differs(leaf, type_of(leaf[1]), self.time_zone):
                return True
            if leaf[0] != "cmp" or leaf[2] in ("=", "!="):
                return False
            typ = _file_type(file_schema, resolved[leaf[1]])
            return typ is not None and typ.name in UNORDERED

        pushed, cut = weaken(tree, unordered)
        expr = True if pushed is True else to_expression(pushed, resolved.__getitem__, type_of, self.time_zone)
        return FilePredicate(expr, tree if cut else None, resolved, type_of, self.time_zone)


class FilePredicate:
    """One file's filter: ``pushed`` (True, False or a parquet_core Expression, exact unless
    ``post`` is set) and ``post`` (the whole NNF tree, to apply to the rows read)."""

    def __init__(self, pushed: Any, post: tuple | None = None, resolved: dict[str, str] | None = None,
                 type_of: Callable[[str], Any] | None = None, time_zone: str = "UTC") -> None:
        self.pushed, self.post = pushed, post
        self.resolved = resolved or {}
        self.type_of, self.time_zone = type_of, time_zone

    def columns(self) -> list[str]:
        """The file columns the filter reads."""
        return sorted(set(self.resolved.values()))

    def post_mask(self, column: Callable[[str], Any]) -> Any:
        """Where ``post`` holds on the rows read (*column*: file column name -> Arrow array)."""
        from spark_adapter.core.arrow_filter import arrow_mask
        from spark_adapter.core.sql_filter import literal_value

        def value(leaf: tuple, arr: Any) -> Any:
            typ = self.type_of(leaf[1])  # type: ignore[misc]
            if leaf[0] == "in":
                return [literal_value(v, typ, leaf[1], self.time_zone) for v in leaf[2]]
            return literal_value(leaf[3], typ, leaf[1], self.time_zone)

        return arrow_mask(self.post, lambda name: column(self.resolved[name]), value)  # type: ignore[arg-type]


def _spark_nan_differs(leaf: tuple, spark_type: Any, time_zone: str) -> bool:
    """True for a leaf on a float or double column whose result on NaN differs between Spark
    (NaN equals NaN and is larger than every number) and IEEE comparisons, as parquet_core
    makes them: ``>`` and ``>=``, and any comparison or IN with a NaN literal.  Statistics
    leave NaN out, so such a leaf cannot prune either; it is evaluated on the rows read."""
    import math

    from pyspark.sql.types import DoubleType, FloatType

    from spark_adapter.core.sql_filter import literal_value

    if not isinstance(spark_type, (FloatType, DoubleType)):
        return False
    lits = leaf[2] if leaf[0] == "in" else [leaf[3]]
    if any(math.isnan(literal_value(lit, spark_type, leaf[1], time_zone)) for lit in lits):
        return True
    return leaf[0] == "cmp" and leaf[2] in (">", ">=")


def _file_type(schema: Any, dotted: str) -> Any:
    """The parquet_core type at a dotted path of a file schema, or None."""
    fields = list(schema)
    typ = None
    for part in dotted.split("."):
        match = [f for f in fields if f.name == part]
        if not match:
            return None
        typ = match[0].type
        fields = list(typ.fields)
    return typ


def ambiguous_column(name: str, positions: list[int], what: str = "") -> Exception:
    """The error for a name the file gives several columns: the source matches columns by
    name, so it cannot pick one (and must not hand Spark the other's values)."""
    from parquet_core.errors import ParquetSchemaError

    return ParquetSchemaError(
        f"column name {name!r} is ambiguous in the file{what}: {len(positions)} columns have it, at "
        f"positions {', '.join(map(str, positions))}; pqcore matches columns by name")


def _resolve(names: list[str], wanted: str) -> str | None:
    """The file column for a name: exact, else a unique case-insensitive match (Spark's default).
    A name the file gives several columns raises ``ParquetSchemaError``."""
    if wanted in names:
        found = [i for i, n in enumerate(names) if n == wanted]
        if len(found) > 1:
            raise ambiguous_column(wanted, found, " (a filter column)")
        return wanted
    cands = [n for n in names if n.lower() == wanted.lower()]
    if len(cands) > 1:
        raise ValueError(f"column {wanted!r} matches several columns of the file: {cands}")
    return cands[0] if cands else None


def _compressed_size(group: Any) -> int:
    """A row group's bytes on disk (the optional footer field, else the sum of its chunks)."""
    total = group.total_compressed_size
    if total is None:
        total = sum(group.column(j).total_compressed_size for j in range(group.num_columns))
    return int(total)


@dataclass
class Piece:
    """Part of one file for one task: its row groups (None: all) and folder values (raw)."""

    path: str
    row_groups: list[int] | None
    partition_values: dict[str, str | None] = field(default_factory=dict)   # None: a null folder value
    weight: int = 0


def plan_pieces(files: list[str], specs: list[list[tuple[str, str | None]]], scan_filter: ScanFilter,
                spark_types: Any, typed_values: Callable[[dict[str, str | None]], dict[str, Any]],
                max_bytes: int = DEFAULT_MAX_PARTITION_BYTES,
                open_cost: int = DEFAULT_OPEN_COST, options: Any = None) -> list[Piece]:
    """The pieces of a scan: whole small files, large files split by row groups, and with a
    filter only the row groups it may need (footers read here, on the driver)."""

    out: list[Piece] = []
    for path, spec in zip(files, specs):
        values = dict(spec)
        size = os.path.getsize(path)
        if not scan_filter and size <= max_bytes:
            out.append(Piece(path, None, values, size + open_cost))
            continue
        try:
            with open_parquet(path, options) as pf:
                md = pf.metadata
                sizes = [_compressed_size(md.row_group(i)) for i in range(md.num_row_groups)]
                groups = list(range(md.num_row_groups))
                if scan_filter:
                    expr = scan_filter.for_file(pf.schema_arrow, spark_types, typed_values(values)).pushed
                    if expr is False:
                        continue
                    if expr is not True:
                        # the filter's own columns only: their bytes give the share kept, and
                        # the offset indexes of the other columns are not parsed here
                        report = pf.explain(expr, columns=[])
                        share = report.bytes_kept / report.bytes_total if report.bytes_total else 1.0
                        groups = list(report.kept)
                        if not groups:
                            continue
                        sizes = [int(s * share) for s in sizes]
        except Exception as exc:
            add_note(exc, f"pqcore: while planning the scan of {path}")
            raise
        kept_bytes = sum(sizes[g] for g in groups)
        if kept_bytes <= max_bytes:
            whole = len(groups) == md.num_row_groups
            out.append(Piece(path, None if whole else groups, values, kept_bytes + open_cost))
            continue
        run: list[int] = []
        run_bytes = 0
        for g in groups:  # one step per row group: consecutive groups share a piece up to max_bytes
            if run and run_bytes + sizes[g] > max_bytes:
                out.append(Piece(path, run, values, run_bytes + open_cost))
                run, run_bytes = [], 0
            run.append(g)
            run_bytes += sizes[g]
        if run:
            out.append(Piece(path, run, values, run_bytes + open_cost))
    return out


def pack(pieces: list[Piece], min_partitions: int, max_bytes: int = DEFAULT_MAX_PARTITION_BYTES) -> list[list[Piece]]:
    """Pieces into ``max(min_partitions, total / max_bytes)`` balanced tasks (largest first,
    each to the lightest task), each task's pieces in listing order."""
    if not pieces:
        return []
    total = sum(p.weight for p in pieces)
    n = min(len(pieces), max(1, min_partitions, math.ceil(total / max_bytes)))
    bins: list[list[int]] = [[] for _ in range(n)]
    loads = [0] * n
    order = sorted(range(len(pieces)), key=lambda i: -pieces[i].weight)
    for i in order:  # one step per piece (files and row-group runs, not rows)
        b = loads.index(min(loads))
        bins[b].append(i)
        loads[b] += pieces[i].weight
    return [[pieces[i] for i in sorted(b)] for b in bins if b]
