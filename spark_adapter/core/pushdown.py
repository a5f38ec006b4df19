"""``pushFilters``: Spark's pushed filters as extra pruning, only where Spark cannot misuse them.

Spark (4.1+) calls ``pushFilters`` only when ``spark.sql.python.filterPushdown.enabled``
is on.  pqcore then translates every filter it can into the predicate tree of
:mod:`spark_adapter.core.sql_filter` and **hands every filter back**, so Spark still
filters the rows itself.  Whether the translation also prunes (row groups,
pages, dictionaries, Bloom filters, whole files through partition columns)
is the ``prunePushedFilters`` option's choice, off by default, because Spark
4.1-4.3 hand a pushed reader to scans it was not planned for (Spark notes,
section 4.3, and ``tests/spark/test_stale_filters.py``):

* **across queries**: after a query on a DataFrame pushed filters, a later
  query on the same DataFrame (or a temp view over it) that pushes none reuses
  the old reader, with no Python call;
* **within a query**: when one query scans the same DataFrame twice
  (``df.union(df.filter(...))``, a self-join), every scan gets the reader of
  the last push.

Neither can be seen when ``pushFilters`` runs.  With ``prunePushedFilters``
on, :class:`PushedPruning` refuses the first kind at read time: the reader's
first task records the SQL execution it ran in (on the planning host), and
tasks of any other execution read without the pushed filters.  Tasks on a
host that did not plan the scan (a cluster's executors) never prune, and a
push whose query was only planned (``explain()``) and never run is not seen,
so a later query can still be the first to run that reader; and the second
kind cannot be refused at all.  Hence off by default: the ``filter`` /
``filters`` options prune without any of this, since they belong to the
DataFrame.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from typing import Any

from pyspark.sql.datasource import DataSourceReader

from spark_adapter.core.sql_filter import Literal

__all__ = ["pushed_tree", "PushedPruning", "OnlyWhenCalled", "REGISTRY_ENV"]

#: Environment variable naming the folder of the execution records (default: the temp folder).
REGISTRY_ENV = "PQCORE_PUSHDOWN_REGISTRY"
_MAX_AGE_S = 24 * 3600


class _BoundPushFilters:
    """``reader.pushFilters`` as Spark gets it: callable, with the default's ``__func__``."""

    __slots__ = ("reader",)
    __func__ = staticmethod(DataSourceReader.pushFilters)   # what Spark's conf-off check looks at

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    def __call__(self, filters: Any) -> Any:
        return self.reader._push_filters(filters)


class OnlyWhenCalled:
    """``reader.pushFilters``: pqcore's code when called, Spark's default when inspected."""

    def __get__(self, reader: Any, owner: Any = None) -> Any:
        return DataSourceReader.pushFilters if reader is None else _BoundPushFilters(reader)


def _literal(value: Any) -> Literal | None:
    """A pushed Python value as an option literal, or None when it cannot be one exactly:
    NaN and infinities (Spark orders NaN above everything), bytes (binary columns),
    arrays, variants... are left to Spark."""
    return Literal.of(value, finite_only=True)


def _column(attribute: Any) -> str | None:
    parts = tuple(attribute)
    if not parts or any(not isinstance(p, str) or "." in p or not p for p in parts):
        return None   # a dot inside a name would be read as a struct path
    return ".".join(parts)


def _term(f: Any) -> tuple | None:
    """One Spark ``Filter`` as a tree node (the shapes ``sql_filter`` parses), or None."""
    from pyspark.sql import datasource as ds

    if isinstance(f, ds.Not):
        inner = _term(f.child)
        return None if inner is None else ("not", inner)
    column = _column(getattr(f, "attribute", ()))
    if column is None:
        return None
    if isinstance(f, ds.IsNull):
        return ("isnull", column)
    if isinstance(f, ds.IsNotNull):
        return ("notnull", column)
    if isinstance(f, ds.In):
        lits = [_literal(v) for v in f.value if v is not None]
        if not lits or len(lits) != len(f.value) or any(v is None for v in lits):
            return None
        return ("in", column, lits)
    if isinstance(f, ds.EqualNullSafe) and f.value is None:
        return ("isnull", column)
    ops = {ds.EqualTo: "=", ds.EqualNullSafe: "=", ds.GreaterThan: ">", ds.GreaterThanOrEqual: ">=",
           ds.LessThan: "<", ds.LessThanOrEqual: "<="}
    op = ops.get(type(f))
    if op is None or f.value is None:
        return None   # StringStartsWith / EndsWith / Contains and unknown classes
    lit = _literal(f.value)
    # a <=> v with v not null is false on null rows, as a = v is (both drop the row)
    return None if lit is None else ("cmp", column, op, lit)


def pushed_tree(filters: list[Any], type_of: Any, time_zone: str = "UTC") -> tuple | None:
    """The AND of the pushed filters pqcore can evaluate exactly, as a ``sql_filter`` tree
    (before negation normal form); None when there is none.

    *type_of* gives a column's Spark type (None if unknown); a term whose column
    or literal does not fit it is left out (Spark still applies every filter).
    """
    from spark_adapter.core.sql_filter import columns_of, literal_value

    kept = []
    for f in filters:
        node = _term(f)
        if node is None:
            continue
        try:
            for column in columns_of(node):
                typ = type_of(column)
                if typ is None:
                    raise ValueError(column)
                for lit in _literals(node):
                    literal_value(lit, typ, column, time_zone)
        except ValueError:
            continue
        kept.append(node)
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else ("and", kept)


def _literals(node: tuple) -> list[Literal]:
    if node[0] == "not":
        return _literals(node[1])
    if node[0] == "in":
        return list(node[2])
    if node[0] == "cmp":
        return [node[3]]
    return []


def _registry() -> str:
    return os.environ.get(REGISTRY_ENV) or os.path.join(tempfile.gettempdir(), "pqcore-pushed-readers")


class PushedPruning:
    """The pushed predicate of one planned reader, and the record that confines it to one execution.

    Created in ``pushFilters`` (a planning worker on the driver host): makes a
    folder named by a fresh token in the registry.  :meth:`allowed` runs in
    every task before it prunes.
    """

    def __init__(self, tree: tuple) -> None:
        from spark_adapter.core.sql_filter import nnf

        self.tree = nnf(tree)
        self.token = uuid.uuid4().hex
        root = _registry()
        os.makedirs(os.path.join(root, self.token), exist_ok=True)   # OSError: the caller prunes nothing
        _sweep(root, self.token)

    def allowed(self) -> bool:
        """True when this task may prune: it runs in a SQL execution, on the host that
        planned the reader, and that execution is the first (or only) one to run it."""
        from pyspark import TaskContext

        ctx = TaskContext.get()
        execution = ctx.getLocalProperty("spark.sql.execution.id") if ctx is not None else None
        if not execution:
            return False
        folder = os.path.join(_registry(), self.token)
        if not os.path.isdir(folder):
            return False
        record = os.path.join(folder, "execution")
        try:
            fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return _read(record) == execution
        except OSError:
            return False      # no record, no pruning
        with os.fdopen(fd, "w") as out:
            out.write(execution)
        return True


def _read(path: str) -> str | None:
    # The first task writes the record right after creating it; wait briefly for the text.
    for _ in range(50):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return None
        if text:
            return text
        time.sleep(0.01)
    return None


def _sweep(root: str, keep: str) -> None:
    """Remove records older than a day (best effort; another process may race us)."""
    import shutil

    cutoff = time.time() - _MAX_AGE_S
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            if name != keep and os.path.getmtime(path) < cutoff:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue
