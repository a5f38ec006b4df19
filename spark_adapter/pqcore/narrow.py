"""``spark_adapter.read``: a pqcore DataFrame read with only what one query needs.

Spark gives a Python data source neither the columns a query uses nor (by
default) its filters: ``count()`` over ``format("pqcore")`` decodes and ships
every column.  This helper runs on the driver, in the user's process, where
the query's plan can be seen::

    df = spark_adapter.read(spark, "/data/t", lambda df: df.where("k = 7").groupBy("s").count())

1. it loads the table as usual and applies *query* to it, without running it;
2. from Spark's optimized plan it takes the columns of the scan that any plan
   node (or the result) references, and the conjuncts of the filters sitting
   on every scan of the table whose SQL text the ``filter`` option parses;
3. it loads the table again with a user schema of just those columns (for
   ``count()``, which needs none, the narrowest fixed-width one: see
   :func:`cheapest_column`) and those conjuncts as the ``filter`` option, and returns
   *query* applied to that.  A column the query names but the optimizer prunes
   away (``d.select("x").count()`` needs ``x`` to exist, not its values) is added
   when Spark reports it unresolved there.  The result must have the same
   schema and read the same table columns as on the full table; a query that
   does not (one that picks columns by position from ``df.columns``, say) runs
   on the full table.

*query* must use columns by name, not by their position in ``df.columns`` or
their number: it runs again on a table of fewer columns (a query that fails
there, or gives other result columns or reads other table columns, runs on the
full table instead).

Spark still evaluates every filter of the query on the rows read, so the
``filter`` option only saves work (files, row groups, pages skipped).  Names
are matched case-insensitively; only top-level columns are narrowed.  Without
*query* it returns the plain DataFrame.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from typing import Any, Callable, Iterator

__all__ = ["cheapest_column", "read", "query_needs"]

_SCAN_CLASSES = ("DataSourceV2ScanRelation", "DataSourceV2Relation")


def _seq(jseq: Any) -> list[Any]:
    return [jseq.apply(i) for i in range(jseq.size())]


def _relation_key(node: Any) -> tuple | None:
    """Identity of a Python data source scan: (table name, options), or None for other nodes."""
    cls = node.getClass().getSimpleName()
    if cls not in _SCAN_CLASSES:
        return None
    rel = node.relation() if cls == "DataSourceV2ScanRelation" else node
    opts = rel.options().asCaseSensitiveMap()
    # keys through a Java array: py4j ends a loop over a Java iterator with an exception,
    # which pyspark converts at several milliseconds each
    keys = list(opts.keySet().toArray())
    return (rel.table().name(), tuple(sorted((str(k), str(opts.get(k))) for k in keys)))


def _walk(node: Any, out: list[Any]) -> None:
    out.append(node)
    for sub in _seq(node.subqueries()):
        _walk(sub, out)
    for child in _seq(node.children()):
        _walk(child, out)


def _conjuncts(expr: Any) -> list[Any]:
    if expr.nodeName() == "And":
        return _conjuncts(expr.left()) + _conjuncts(expr.right())
    return [expr]


_NUMBER_SUFFIX = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?:BD|L|S|Y|D)\b")


def filter_text(sql: str) -> str | None:
    """Spark's ``Expression.sql()`` as the ``filter`` option's syntax, or None when it may not
    mean the same there (a backslash escape), e.g. ``(id >= 5L)`` -> ``(id >= 5)``."""
    if "\\" in sql:
        return None
    parts = re.split(r"('[^']*'|`[^`]*`)", sql)   # literals and quoted names left as they are
    return "".join(p if i % 2 else _NUMBER_SUFFIX.sub(r"\1", p) for i, p in enumerate(parts))


def query_needs(full: Any, probe: Any) -> tuple[list[str], list[str]]:
    """``(columns, filter conjuncts)``: the columns of *full* (a pqcore DataFrame) that the
    optimized plan of *probe* (a query over it) uses, in *full*'s order, and the conjuncts,
    as ``filter`` option text, of filters that sit on every scan of *full* in that plan."""
    from spark_adapter.core.sql_filter import columns_of, parse_filter
    from spark_adapter.pqcore.scan import field_type

    (base_leaf,) = [n for n in _all_nodes(full._jdf.queryExecution().analyzed()) if not _seq(n.children())]
    key = _relation_key(base_leaf)
    plan = probe._jdf.queryExecution().optimizedPlan()
    nodes = _all_nodes(plan)
    ours = {}      # exprId -> column name, over every scan of the same table and options
    leaves = []
    for n in nodes:
        if key is not None and _relation_key(n) == key:
            leaves.append(n)
            for a in _seq(n.output()):
                ours[a.exprId().id()] = a.name()
    if not leaves:     # the query does not scan the table (or not as we can tell): keep all
        return list(full.columns), []
    used = _referenced(nodes, plan, ours)
    columns = [c for c in full.columns if c.lower() in used]

    # filters: the conjuncts directly above each scan; only those common to every scan
    above: dict[tuple[int, ...], set[str]] = {}
    for n in nodes:
        if n.nodeName() != "Filter":
            continue
        child = n.child()
        if _relation_key(child) != key:
            continue
        texts: set[str] = set()
        for c in _conjuncts(n.condition()):
            text = filter_text(c.sql())
            try:
                tree = parse_filter(text) if text else None
            except ValueError:
                tree = None
            if text and tree is not None and all(field_type(full.schema, col) is not None
                                                 for col in columns_of(tree)):
                texts.add(text)
        above[_scan_id(child)] = above.get(_scan_id(child), set()) | texts
    common: set[str] | None = None
    for leaf in leaves:
        got = above.get(_scan_id(leaf), set())
        common = got if common is None else common & got
    return columns, sorted(common or ())


def _referenced(nodes: list[Any], plan: Any, ours: dict[int, str]) -> set[str]:
    """Lower-cased names of the scan columns (``ours``: exprId -> name) that any of *nodes*
    references or *plan* outputs."""
    used = set()
    for n in nodes:
        for a in _seq(n.references().toSeq()):
            if a.exprId().id() in ours:
                used.add(ours[a.exprId().id()].lower())
    for a in _seq(plan.output()):
        if a.exprId().id() in ours:
            used.add(ours[a.exprId().id()].lower())
    return used


_WIDTHS = {"BooleanType": 1, "ByteType": 1, "ShortType": 2, "IntegerType": 4, "DateType": 4,
           "FloatType": 4, "LongType": 8, "DoubleType": 8, "TimestampType": 8, "TimestampNTZType": 8}


def cheapest_column(schema: Any) -> list[str]:
    """``[name]`` of the narrowest fixed-width top-level field of *schema* (the first of
    equals), or ``[]`` when it has none.

    A query that uses no column (``count()``) still reads one: pyspark (4.3) turns a
    batch without columns into ``pa.array([{}] * rows)``, a Python object per row, which
    costs more than decoding and shipping one small fixed-width column."""
    best: tuple[int, int] | None = None
    for i, f in enumerate(schema.fields):
        width = _WIDTHS.get(type(f.dataType).__name__)
        if width is not None and (best is None or width < best[0]):
            best = (width, i)
    return [] if best is None else [schema.fields[best[1]].name]


def _scan_id(node: Any) -> tuple[int, ...]:
    """One scan occurrence: its output attribute ids (the same node object is not kept by py4j)."""
    return tuple(a.exprId().id() for a in _seq(node.output()))


def _all_nodes(plan: Any) -> list[Any]:
    out: list[Any] = []
    _walk(plan, out)
    return out


def read(spark: Any, path: str | list[str], query: Callable[[Any], Any] | None = None, *,
         format: str = "pqcore", **options: Any) -> Any:  # noqa: A002 (Spark's word)
    """``query(spark.read.format("pqcore").options(**options).load(path))``, read narrowly.

    The table is loaded twice on the driver (footers for the schema), the query's plan
    is analysed with the first load, and the DataFrame returned scans only the columns
    and, through the ``filter`` option, only the files, row groups and pages the query
    needs (see the module docstring).  An explicit ``filter`` option is kept (ANDed).
    """
    from pyspark.sql.types import StructType

    def load(schema: Any = None, extra_filter: str | None = None) -> Any:
        r = spark.read.format(format)
        for k, v in options.items():
            r = r.option(k, v)
        if extra_filter:
            given = options.get("filter")
            r = r.option("filter", extra_filter if not given else f"({given}) and ({extra_filter})")
        if schema is not None:
            r = r.schema(schema)
        return r.load(path)

    full = load()
    if query is None:
        return full
    probe = query(full)
    if not hasattr(full, "_jdf"):
        # Spark Connect: the client sees no JVM plan to narrow by, so the query reads the table
        return probe
    needed, conjuncts = query_needs(full, probe)
    extra = " and ".join(f"({c})" for c in conjuncts) or None
    names = list(needed)
    # each round adds one column the query names but the optimizer prunes (so at most one
    # round per column); a query that fails on the narrowed table for another reason, or
    # means something else there, runs on the full table
    for _ in range(len(full.columns) + 1):
        columns = names or cheapest_column(full.schema)
        if len(columns) == len(full.columns) and not conjuncts:
            return probe
        wanted = {c.lower() for c in columns}
        schema = StructType([f for f in full.schema.fields if f.name.lower() in wanted])
        base = load(schema if len(columns) < len(full.columns) else None, extra)
        try:
            with _quiet_analysis_errors():
                narrowed = query(base)
            again, _ = query_needs(base, narrowed)
        except Exception as exc:  # noqa: BLE001 - it ran on the full table; see above
            missing = _unresolved_column(exc, full.columns, names)
            if missing is None:
                return probe
            names = [c for c in full.columns if c.lower() in {n.lower() for n in names} | {missing.lower()}]
            continue
        return narrowed if narrowed.schema == probe.schema and again == needed else probe
    return probe


# pyspark (4.x) logs every analysis error of a DataFrame call at ERROR level, stack trace
# included, on these loggers (propagate off) before raising it
_ANALYSIS_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")


@contextlib.contextmanager
def _quiet_analysis_errors() -> Iterator[None]:
    """Drop the records of pyspark's analysis-error loggers logged by this thread meanwhile:
    a narrowed attempt that fails is expected (the column is added and the query tried
    again), and the user would otherwise see an ERROR with a stack trace for a query that
    works.  Other threads' records pass."""
    get: Callable[[str | None], logging.Logger]
    try:   # made through pyspark's class: a plain Logger made first would stay plain
        from pyspark.logger import PySparkLogger  # and refuse pyspark's extra fields
        get = PySparkLogger.getLogger
    except ImportError:                           # pragma: no cover (pyspark < 4)
        get = logging.getLogger
    me = threading.get_ident()

    def others(record: logging.LogRecord) -> bool:
        return record.thread != me

    loggers = [get(name) for name in _ANALYSIS_LOGGERS]
    for lg in loggers:
        lg.addFilter(others)
    try:
        yield
    finally:
        for lg in loggers:
            lg.removeFilter(others)


def _unresolved_column(exc: BaseException, table: list[str], have: list[str]) -> str | None:
    """The table column *exc* (Spark's ``UNRESOLVED_COLUMN`` analysis error) says the query
    names, when it is one the narrowed table left out; else None."""
    get = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    params = getattr(exc, "getMessageParameters", None)
    if get is None or params is None:
        return None
    cond, values = str(get() or ""), params() or {}
    if cond.startswith("UNRESOLVED_COLUMN"):          # a name in SQL text or F.col(...)
        name = str(values.get("objectName", "")).split("`.`")[-1].strip("`")
    elif cond == "ATTRIBUTE_NOT_SUPPORTED":           # df.x
        name = str(values.get("attr_name", ""))
    else:
        return None
    lower = {c.lower(): c for c in table}
    if name.lower() not in lower or name.lower() in {h.lower() for h in have}:
        return None
    return lower[name.lower()]
