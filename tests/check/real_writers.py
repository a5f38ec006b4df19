"""Files from other writers with unusual options, and what ``pqc check`` may say about them.

Shared by ``tests/check/test_check_real_writers.py`` (pyarrow, duckdb, polars,
fastparquet) and ``tests/spark/test_check_spark_written.py`` (Spark, slow).

The bar: a valid file written by a real writer gets **no error**, and a
**warning only under a rule the spec supports**: a named writer-bug rule
(``writers.*``, each citing the spec text the writer breaks), or one of
:data:`SPEC_WARNINGS` below, each with the spec text it rests on.  Every
finding is tallied in :data:`HITS` (rule -> files), printed by the tests so a
run shows which rules real files hit.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections import defaultdict
from contextlib import redirect_stdout
from decimal import Decimal
from pathlib import Path

from parquet_core.cli import main

#: Warnings a valid file may get, with the spec text that makes them worth a warning.
SPEC_WARNINGS: dict[str, str] = {
    # fastparquet compression="LZ4" writes the Hadoop-framed codec
    "footer.codec-lz4-deprecated": 'Compression.md "LZ4": "A **deprecated** codec ... It is strongly suggested '
                                   'that implementors of Parquet writers deprecate this compression codec"',
    # duckdb writes a zero minimum of FLOAT/DOUBLE statistics as +0.0
    "statistics.zero-sign": 'parquet.thrift ColumnOrder (TYPE_ORDER, writing statistics): "If the computed min '
                            'value is zero (whether negative or positive), `-0.0` should be written into the min '
                            'statistics field"',
    # fastparquet's deprecated min/max on unsigned and string columns (when the values cannot tell
    # in which order they were taken; else writers.fastparquet-unsigned-deprecated-bounds)
    "statistics.deprecated-unsigned": 'parquet.thrift Statistics.min/max: "DEPRECATED ... determined by signed '
                                      'comparison only ... these may be set when the column order is signed"',
    # fastparquet fixed_text= with object_encoding utf8: a spec violation by fastparquet
    "schema.string-on-flba": 'LogicalTypes.md "STRING": "`STRING` may only be used to annotate the '
                             '`BYTE_ARRAY` primitive type"',
}

#: rule id -> names of the files whose report has it (filled as the tests run).
HITS: dict[str, set[str]] = defaultdict(set)

N = 80


def columns(n: int = N) -> dict[str, list]:
    """Plain Python columns of many kinds: flat, nested, with nulls, all null, repeated values."""
    words = ["alpha", "alphabet", "alp", "beta", "beta", "gamma", "", "delta"]
    return {
        "i64": list(range(n)),
        "i32": [None if i % 5 == 0 else (i * 7) % 50 - 25 for i in range(n)],
        "f64": [None if i % 9 == 0 else i / 3 for i in range(n)],
        "flag": [i % 3 == 0 for i in range(n)],
        "s": [None if i % 11 == 0 else words[i % len(words)] for i in range(n)],
        "b": [bytes([i % 7]) * (i % 4) for i in range(n)],
        "dec": [Decimal(i * 3 - 100) / 100 for i in range(n)],
        "day": [dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in range(n)],
        "ts": [dt.datetime(2021, 5, 1) + dt.timedelta(seconds=37 * i) for i in range(n)],
        "li": [None if i % 7 == 0 else list(range(i % 5)) for i in range(n)],
        "ls": [None if i % 6 == 0 else [words[(i + j) % len(words)] for j in range(i % 4)] for i in range(n)],
        "st": [None if i % 8 == 0 else {"a": i, "t": None if i % 3 == 0 else f"t{i % 4}"} for i in range(n)],
        "m": [None if i % 10 == 0 else [(f"k{j}", None if j == 2 else i + j) for j in range(i % 4)] for i in range(n)],
        "null_s": [None] * n,
        "null_i": [None] * n,
    }


def pqc_check(files: dict[str, str | Path]) -> tuple[int, dict[str, dict]]:
    """Run ``pqc check --json`` (data level) over *files* (name -> path); tally the rules in :data:`HITS`.

    Returns the exit status and each file's report (``CheckReport.to_dict()``), by name.
    """
    names = {str(p): name for name, p in files.items()}
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["check", "--json", *names])
    reports = {}
    for line in out.getvalue().splitlines():
        report = json.loads(line)
        name = names[report["file"]]
        reports[name] = report
        for f in report["findings"]:
            HITS[f["rule"]].add(name)
    assert set(reports) == set(files), "pqc check printed no report for some files"
    return status, reports


def problems(report: dict) -> list[str]:
    """Findings a valid file from a real writer must not get (as ``severity rule [where]: message``)."""
    bad = []
    for f in report["findings"]:
        if f["severity"] == "error" or (f["severity"] == "warning" and not f["rule"].startswith("writers.")
                                        and f["rule"] not in SPEC_WARNINGS):
            where = ", ".join(f"{k} {f[k]}" for k in ("row_group", "column", "page") if f[k] is not None)
            bad.append(f"{f['severity']} {f['rule']} [{where}]: {f['message']}")
    if not report["readable"]:
        bad.append("unreadable")
    return bad


def assert_spec_clean(files: dict[str, str | Path]) -> None:
    """``pqc check`` finds no error and no unsupported warning in any of *files*; print the tally."""
    status, reports = pqc_check(files)
    bad = {name: problems(r) for name, r in reports.items() if problems(r)}
    print(summary())
    assert not bad, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in bad.items())
    assert status == 0


def summary() -> str:
    """The rules hit so far, with how many files hit each."""
    lines = [f"{len(files):4d} file(s)  {rule}" for rule, files in sorted(HITS.items())]
    return "\n".join(["rules hit by real writers' files:"] + (lines or ["  (none)"]))
