"""Spark: ``format("pqcore")`` vs Spark's built-in Parquet, in one run.

    python -m benchmarks.spark_bench [--rows 4000000] [--files 8] [--repeats 3]

A multi-file dataset (default 4M rows in 8 files, snappy, written once by
Spark's own writer with small pages so page indexes can help): ``id``
(sorted within files), ``k`` (int, 1,000 values), ``x`` (double), ``s``
(string, 100 values), ``t`` (timestamp).  Queries, each on a fresh DataFrame
(planning included), best of N:

* full scan: ``count()`` after reading every column (``df.select(hash(*))``);
* column sum: ``sum(x)``; pqcore twice: as is (Spark gives a Python source
  no column pruning, so all five columns are read) and with
  ``.option("columns", "x")`` (only ``x`` read);
* selective filter: ``id between a and a + 999`` (0.025 % of rows) - built-in
  with its own pushdown, pqcore with ``.option("filter", ...)`` (the same SQL
  text; row groups pruned on the driver, then pages by the page index);
  every file holds matching rows (files are split by ``k``, sorted by ``id``);
* point lookup ``k = 7`` (0.1 % of rows, all in one file): the driver's
  statistics and dictionary pruning leave one file, so one task;
* the same two filters written as ``df.filter(...)`` and pushed by Spark
  (``spark.sql.python.filterPushdown.enabled`` on, ``prunePushedFilters``):
  pqcore prunes inside the tasks only, so every file still gets a task;
* the same rows in many small files (``--many-files``, default 200, split by
  ``k``): point lookups ``k = 7`` and ``k in (7, 8)``, where the driver's
  pruning leaves one or two files while the built-in reader opens every file,
  and the ``id`` range, where every file holds matches;
* write: the whole dataset written back (``mode("overwrite")``);
* ``count()`` and ``groupBy("s").agg(sum(x))`` as is (Spark gives the Python source no
  column pruning: every column is read and shipped), and each of them, the column sum
  and the many-files point lookup through ``spark_adapter.read(spark, path, query)``,
  which reads only the columns and row groups the query needs;
* ``--first-query N``: instead, the first ``count()`` of N fresh applications per reader,
  and of a Python source that does nothing (``pqtrivial``: Spark's own cost for any);
* ``--floor``: each case also through ``format("pqfloor")`` (``benchmarks/spark_floor.py``):
  the same plan with the decoding taken out, Spark's own cost for any Python source;
* ``--floor --check``: only what CI bounds (``tests/spark/test_spark_floor.py``): the full
  scan and ``groupBy`` against the floor, and the first query of a new application
  against the do-nothing source; ``--json`` writes the figures, ``--write-doc``
  regenerates the block of docs/spark-deployment.md from them.

Both sides are checked to return the same numbers.  Reported: seconds and
pqcore / built-in ratios (>1: pqcore slower).  local[2], UI off, one
session for both, ``PYSPARK_PYTHON`` = this interpreter, ``PYTHONPATH`` = this
checkout (so Spark's Python workers import its code), its modules compiled to
``.pyc`` first as an install would (see ``_compile_checkout``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _compile_checkout() -> None:
    """Write ``.pyc`` files for the project's modules, as installing a wheel does.

    Spark starts new Python workers (schema, planning, one per task) that each import
    the adapter and the engine; run from a checkout under ``PYTHONDONTWRITEBYTECODE``
    every one of them would compile ~170 modules again (about 0.15 s of CPU each),
    a cost an installed package does not have.  (pyspark's own ``pyspark.zip``, which
    Spark puts first on the workers' path, holds no ``.pyc``: that cost is Spark's and
    is the same for any Python data source.)
    """
    import compileall

    root = Path(__file__).resolve().parent.parent
    for sub in ("parquet_core", "parquet_core_integrations", "spark_adapter"):
        compileall.compile_dir(str(root / sub), quiet=1)
    for shim in root.glob("pyspark_*.py"):
        compileall.compile_file(str(shim), quiet=1)


def spark_session():
    root = str(Path(__file__).resolve().parent.parent)
    _compile_checkout()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
             .config("spark.driver.memory", "4g").config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.warehouse.dir", tempfile.mkdtemp()).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    import spark_adapter

    spark_adapter.register(spark)
    # the code Spark's Python workers run: this checkout's, not an installed copy
    where = spark.sparkContext.parallelize([0], 1).map(
        lambda _: [__import__(m).__file__ for m in ("spark_adapter", "parquet_core")]).collect()[0]
    print("Python workers import:", ", ".join(where))
    if not all(w.startswith(root) for w in where):
        raise SystemExit(f"Spark's Python workers do not import {root}: {where}")
    return spark


def best(fn, repeats: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _write_data(spark, data: str, rows: int, files: int) -> None:
    (spark.range(rows).selectExpr(
        "id", "cast(id % 1000 as int) as k", "rand(7) as x", "concat('s', cast(id % 100 as string)) as s",
        "timestamp_micros(1700000000000000 + id * 1000) as t")
     .repartition(files, "k").sortWithinPartitions("id")
     .write.option("parquet.page.size", 64 * 1024).option("parquet.page.write-checksum.enabled", "false")
     .parquet(data))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--repeats", "-n", type=int, default=3)
    ap.add_argument("--data", help="keep the dataset in this folder (reused when it exists; must match --rows)")
    ap.add_argument("--no-write", action="store_true", help="skip the write case")
    ap.add_argument("--many-files", type=int, default=200,
                    help="files of the many-files dataset (0: skip those cases)")
    ap.add_argument("--floor", action="store_true",
                    help="also time format('pqfloor'): the same reads with the decoding taken out "
                         "(benchmarks/spark_floor.py), Spark's own cost for any Python source")
    ap.add_argument("--first-query", type=int, default=0, metavar="N",
                    help="instead: the first query of N fresh applications per reader (needs --data)")
    ap.add_argument("--check", action="store_true",
                    help="with --floor: only the full scan, groupBy and first query, against the floor")
    ap.add_argument("--json", help="with --check: write the figures to this file")
    ap.add_argument("--write-doc", action="store_true",
                    help="with --check: regenerate the figures block of docs/spark-deployment.md")
    args = ap.parse_args(argv)
    if args.check:
        return floor_check(args)
    if args.first_query:
        return first_queries(args)
    spark = spark_session()
    d = Path(tempfile.mkdtemp())
    data = args.data or str(d / "data")
    if not Path(data).exists():
        _write_data(spark, data, args.rows, args.files)
    many = f"{data}-{args.many_files}files"
    if args.many_files and not Path(many).exists():
        _write_data(spark, many, args.rows, args.many_files)
    lo = args.rows // 3
    filt_sql = f"id between {lo} and {lo + 999}"

    def builtin():
        return spark.read.parquet(data)

    fmt = ["pqcore"]   # "pqfloor" while the floor of a case is timed

    def ours(**options: str):
        r = spark.read.format(fmt[0])
        for k, v in options.items():
            r = r.option(k, v)
        return r.load(data)

    def pushed(sql: str):
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
        try:
            return ours(prunePushedFilters="true").filter(sql).count()
        finally:
            spark.conf.unset("spark.sql.python.filterPushdown.enabled")

    import spark_adapter

    def narrow(query):
        return spark_adapter.read(spark, data, query, format=fmt[0])

    def total(df):
        return round(df.collect()[0][0], 6)

    def groups(df):   # sums of floats: the order of additions differs between readers
        return sorted((k, round(v, 6)) for k, v in df.collect())

    cases = [
        ("count()", lambda: builtin().count(), lambda: ours().count()),
        ("count(), read()", lambda: builtin().count(),
         lambda: narrow(lambda d: d.groupBy().count()).collect()[0][0]),
        ("groupBy s sum(x)", lambda: groups(builtin().groupBy("s").agg({"x": "sum"})),
         lambda: groups(ours().groupBy("s").agg({"x": "sum"}))),
        ("groupBy, read()", lambda: groups(builtin().groupBy("s").agg({"x": "sum"})),
         lambda: groups(narrow(lambda d: d.groupBy("s").agg({"x": "sum"})))),
        ("full scan", lambda: builtin().selectExpr("hash(*) as h").agg({"h": "sum"}).collect()[0][0],
         lambda: ours().selectExpr("hash(*) as h").agg({"h": "sum"}).collect()[0][0]),
        ("column sum", lambda: round(builtin().agg({"x": "sum"}).collect()[0][0], 6),
         lambda: round(ours().agg({"x": "sum"}).collect()[0][0], 6)),
        ("column sum, cols", lambda: round(builtin().agg({"x": "sum"}).collect()[0][0], 6),
         lambda: round(ours(columns="x").agg({"x": "sum"}).collect()[0][0], 6)),
        ("column sum, read()", lambda: total(builtin().agg({"x": "sum"})),
         lambda: total(narrow(lambda d: d.agg({"x": "sum"})))),
        ("selective filter", lambda: builtin().filter(filt_sql).count(),
         lambda: ours(filter=filt_sql).count()),
        ("point lookup k=7", lambda: builtin().filter("k = 7").count(),
         lambda: ours(filter="k = 7").count()),
        ("selective, pushed", lambda: builtin().filter(filt_sql).count(), lambda: pushed(filt_sql)),
        ("point k=7, pushed", lambda: builtin().filter("k = 7").count(), lambda: pushed("k = 7")),
    ]
    if args.many_files:
        n = args.many_files
        for q in ("k = 7", "k in (7, 8)", filt_sql):
            label = f"{n} files, {q if len(q) < 12 else 'id range'}"
            cases.append((label, lambda q=q: spark.read.parquet(many).filter(q).count(),
                          lambda q=q: spark.read.format(fmt[0]).option("filter", q).load(many).count()))
        cases.append((f"{n} files, k=7 read()", lambda: spark.read.parquet(many).filter("k = 7").count(),
                      lambda: spark_adapter.read(spark, many, lambda d: d.filter("k = 7").groupBy().count(), format=fmt[0])
                      .collect()[0][0]))
    print(f"== Spark {spark.version}: {args.rows:,} rows in {args.files} files "
          f"({sum(f.stat().st_size for f in Path(data).glob('*.parquet')) / 1e6:.0f} MB); best of {args.repeats}")
    head = f"{'query':24s} {'built-in s':>10s} {'pqcore s':>9s} {'pqcore/built-in':>16s}"
    if args.floor:
        from benchmarks.spark_floor import FloorDataSource

        spark.dataSource.register(FloorDataSource)
        head += f" {'floor s':>8s} {'floor/built-in':>15s}"
    print(head)
    print("-" * len(head))
    # warm-up, untimed: the JVM compiles its scan and aggregation code on the first queries,
    # which would otherwise land on the first case's built-in time
    for _ in range(2):
        builtin().count()
        builtin().groupBy("s").agg({"x": "sum"}).collect()
    for name, a, b in cases:
        ta, ra = best(a, args.repeats)
        tb, rb = best(b, args.repeats)
        assert ra == rb, (name, ra, rb)
        line = f"{name:24s} {ta:10.2f} {tb:9.2f} {tb / ta:15.2f}x"
        if args.floor:
            fmt[0] = "pqfloor"
            try:
                tf, rf = best(b, args.repeats + 1)   # the first run fills the workers' caches
            finally:
                fmt[0] = "pqcore"
            assert rf == ra, (name, ra, rf)
            line += f" {tf:8.2f} {tf / ta:14.2f}x"
        print(line)
    if args.no_write:
        spark.stop()
        shutil.rmtree(d, ignore_errors=True)
        return
    out_a, out_b = str(d / "wa"), str(d / "wb")
    ta, _ = best(lambda: builtin().write.mode("overwrite").parquet(out_a), args.repeats)
    tb, _ = best(lambda: builtin().write.format("pqcore").mode("overwrite").save(out_b), args.repeats)
    assert spark.read.parquet(out_b).count() == args.rows
    print(f"{'write':24s} {ta:10.2f} {tb:9.2f} {tb / ta:15.2f}x")
    spark.stop()
    shutil.rmtree(d, ignore_errors=True)


_FIRST = r"""
import os, sys, time
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
         .config("spark.sql.session.timeZone", "UTC").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.range(1).count()                      # the JVM is up and has run a job
t = time.perf_counter()
r = spark.read.parquet(sys.argv[2]) if sys.argv[1] == "builtin" else spark.read.format(sys.argv[1]).load(sys.argv[2])
n = r.count()
print("FIRST", time.perf_counter() - t, n)
"""

# A Python data source that does nothing (no imports, two rows): its first query is what
# Spark charges any Python source before reading anything.  Found by Spark's lookup of
# pyspark_* modules, as pqcore is.
_TRIVIAL = """
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition


class _Reader(DataSourceReader):
    def partitions(self):
        return [InputPartition(0), InputPartition(1)]

    def read(self, partition):
        yield (1,)


class DefaultSource(DataSource):
    @classmethod
    def name(cls):
        return "pqtrivial"

    def schema(self):
        return "a long"

    def reader(self, schema):
        return _Reader()
"""


def first_query_times(data: str, n: int, readers: tuple[str, ...] = ("builtin", "pqtrivial", "pqcore")
                      ) -> dict[str, list[float]]:
    """Seconds of the first ``count()`` of *n* fresh applications per reader (see
    :func:`first_queries`), the readers taking turns."""
    import subprocess

    root = str(Path(__file__).resolve().parent.parent)
    _compile_checkout()
    shim = Path(tempfile.mkdtemp())
    (shim / "pyspark_pqtrivial.py").write_text(_TRIVIAL)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               PYTHONPATH=root + os.pathsep + str(shim), SPARK_LOCAL_IP="127.0.0.1")
    times: dict[str, list[float]] = {r: [] for r in readers}
    try:
        for _ in range(n):
            for which in times:
                out = subprocess.run([sys.executable, "-c", _FIRST, which, data], env=env,
                                     cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True).stdout
                line = next(x for x in out.splitlines() if x.startswith("FIRST"))
                times[which].append(float(line.split()[1]))
    finally:
        shutil.rmtree(shim, ignore_errors=True)
    return times


def first_queries(args) -> None:
    """The first ``count()`` of a new application (fresh JVM and Python workers; pqcore found by
    Spark's lookup, no ``register()``), after the session has run one trivial job; beside
    it the built-in reader's and that of a Python source that does nothing (``pqtrivial``)."""
    if not args.data or not Path(args.data).exists():
        raise SystemExit("--first-query needs an existing --data folder")
    times = first_query_times(args.data, args.first_query)
    a, t, b = min(times["builtin"]), min(times["pqtrivial"]), min(times["pqcore"])
    print(f"first count() of a new application, best of {args.first_query}: built-in {a:.2f} s, "
          f"a Python source doing nothing {t:.2f} s ({t - a:+.2f} s), pqcore {b:.2f} s ({b - a:+.2f} s); "
          f"all: {times}")


DOC = Path(__file__).resolve().parent.parent / "docs" / "spark-deployment.md"
# the bounds tests/spark/test_spark_floor.py holds CI to: pqcore's first query over the
# do-nothing source (seconds), and the median of the turns' pqcore / floor ratios per scan
# (issue 35's 1.2x).  What a task spends, by part: python -m benchmarks.spark_task_read DIR --profile
FIRST_QUERY_SLACK_S = 1.0
SCAN_TARGET = 1.2
SCAN_GUARD = SCAN_TARGET
DOC_BEGIN = "<!-- generated: first-query"
DOC_END = "<!-- end: first-query -->"


def floor_check(args) -> dict:
    """``--floor --check``: the figures CI bounds (see the module docstring), printed, and
    written to ``--json`` / the document when asked."""
    import json
    import platform

    import pyspark

    load_before = os.getloadavg()[0]
    spark = spark_session()
    from benchmarks.spark_floor import FloorDataSource

    spark.dataSource.register(FloorDataSource)
    d = Path(tempfile.mkdtemp())
    data = args.data or str(d / "data")
    if not Path(data).exists():
        _write_data(spark, data, args.rows, args.files)
    for _ in range(2):   # warm-up (the JVM compiles its scan and aggregation code)
        spark.read.parquet(data).groupBy("s").agg({"x": "sum"}).collect()
    queries = {
        "full scan": lambda df: df.selectExpr("hash(*) as h").agg({"h": "sum"}).collect()[0][0],
        "groupBy s sum(x)": lambda df: sorted((k, round(v, 6)) for k, v in
                                              df.groupBy("s").agg({"x": "sum"}).collect()),
    }
    scans = {}
    for name, q in queries.items():
        q(spark.read.format("pqfloor").load(data))   # fills the floor's cache in the workers
        times: dict[str, list[float]] = {"builtin": [], "pqcore": [], "floor": []}
        results = set()
        # pqcore and the floor run back to back in every turn (which one first alternates), so a
        # busy moment of the machine falls on both of a pair; the bound is on the median of the
        # turns' pqcore / floor ratios, which one lucky or unlucky turn cannot move (the best
        # times of each reader taken separately can pair a lucky floor turn with an ordinary one)
        readers = {"builtin": lambda: spark.read.parquet(data),
                   "pqcore": lambda: spark.read.format("pqcore").load(data),
                   "floor": lambda: spark.read.format("pqfloor").load(data)}
        for turn in range(args.repeats):
            pair = ["pqcore", "floor"] if turn % 2 == 0 else ["floor", "pqcore"]
            for which in ["builtin", *pair]:
                t, r = best(lambda q=q, load=readers[which]: q(load()), 1)
                times[which].append(t)
                results.add(repr(r))
        assert len(results) == 1, (name, results)
        scans[name] = scan_figures(times)
    spark.stop()
    first = first_query_times(data, max(1, args.first_query))
    best_first = {k: min(v) for k, v in first.items()}
    report = {
        "rows": args.rows, "files": args.files, "repeats": args.repeats, "spark": pyspark.__version__,
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "load_average": round(max(load_before, os.getloadavg()[0]), 1), "scans": scans,
        "first_query": best_first, "first_query_runs": first,
        "first_query_over_trivial": best_first["pqcore"] - best_first["pqtrivial"],
    }
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    if args.write_doc:
        write_doc(report)
    if not args.data:
        shutil.rmtree(d, ignore_errors=True)
    return report


def scan_figures(times: dict[str, list[float]]) -> dict:
    """One query's figures from its turns' times (the lists of each reader, turn by turn): the
    best time of each reader, the pqcore / floor ratio of every turn, and their median."""
    ratios = [p / f for p, f in zip(times["pqcore"], times["floor"])]
    out: dict = {k: min(v) for k, v in times.items()}
    out["turns"] = {k: list(v) for k, v in times.items()}
    out["ratios"] = ratios
    out["pqcore/floor"] = median(ratios)
    return out


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def doc_block(report: dict) -> str:
    """The Markdown the document shows for *report* (between its markers)."""
    f = report["first_query"]
    lines = [
        f"Measured by `python -m benchmarks.spark_bench --floor --check --rows {report['rows']} "
        f"--files {report['files']} --write-doc` (pyspark {report['spark']}, Python {report['python']}, "
        f"local[2], {report['cpus']} CPUs, load average {report.get('load_average', '?')}; "
        f"{report['repeats']} turns, each running Spark's reader, pqcore and the floor; times are the best "
        f"turn, pqcore / floor is the median of the turns' ratios; first queries best of "
        f"{len(report['first_query_runs']['pqcore'])}). CI runs the same command "
        "(`tests/spark/test_spark_floor.py`, alone on the machine after the suite) and fails when pqcore's "
        f"first query is more than {FIRST_QUERY_SLACK_S:.1f} s over a Python source that does nothing, or a "
        f"scan's pqcore / floor is over {SCAN_GUARD:.2f}x.",
        "",
        "| query | Spark's reader | pqcore | floor (any Python source) | pqcore / floor (median of turns) |",
        "|---|---|---|---|---|",
    ]
    for name, s in report["scans"].items():
        lines.append(f"| {name} | {s['builtin']:.2f} s | {s['pqcore']:.2f} s | {s['floor']:.2f} s | "
                     f"{s['pqcore/floor']:.2f}x |")
    lines += [
        "",
        f"First `count()` of a new application (JVM up, one job run): Spark's reader {f['builtin']:.2f} s, "
        f"a Python source that does nothing {f['pqtrivial']:.2f} s, pqcore {f['pqcore']:.2f} s "
        f"({report['first_query_over_trivial']:+.2f} s over the do-nothing source).",
    ]
    return "\n".join(lines)


def write_doc(report: dict, doc: Path = DOC) -> None:
    text = doc.read_text(encoding="utf-8")
    start = text.index(DOC_BEGIN)
    start = text.index("\n", start) + 1
    end = text.index(DOC_END)
    doc.write_text(text[:start] + doc_block(report) + "\n" + text[end:], encoding="utf-8")


if __name__ == "__main__":
    main()
