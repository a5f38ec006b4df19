"""``pqc compat``: which readers read which Parquet features (see docs/compat.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_compat_parser", "compat_command", "parse_pythons"]

_HELP = "measure which readers (pyarrow, duckdb, polars, fastparquet, Spark...) read each format feature"


def add_compat_parser(sub: argparse._SubParsersAction) -> None:
    from parquet_core.compat.readers import READERS
    p = sub.add_parser("compat", help=_HELP, description=(
        "Write one small file per Parquet format feature with parquet_core, read each with every "
        "reader (each in its own process, with a timeout and a memory limit), compare the values and "
        "print the matrix. Verdicts: ok, different, refused, crash, n/a."))
    p.add_argument("--readers", default=None,
                   help=f"comma-separated readers (default: all of {', '.join(READERS)}; "
                        "an uninstalled one is n/a)")
    p.add_argument("--writers", default=None,
                   help="the reverse direction: these libraries (pyarrow, duckdb, polars, fastparquet, spark) "
                        "write what they can of the features and every reader reads those files")
    p.add_argument("--features", default=None, metavar="GLOB",
                   help="comma-separated globs of feature ids (e.g. 'codec.*,logical.TIME*')")
    p.add_argument("--python", action="append", default=[], metavar="READER=PYTHON",
                   help="run READER's child process under the interpreter PYTHON (repeatable), e.g. "
                        "pyarrow=/tmp/venv-pa15/bin/python to measure the pyarrow installed there; "
                        "that environment needs parquet_core's runtime dependencies (docs/compat-notes.md)")
    p.add_argument("--quick", action="store_true", help="a ~15-feature subset (for tests)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per file and reader (default 30)")
    p.add_argument("--memory", type=int, default=4096, help="MiB of address space per reader process "
                   "(default 4096; 0: no limit)")
    p.add_argument("--markdown", metavar="FILE", help="write the matrix as a Markdown page")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--html", metavar="FILE", help="write one self-contained HTML page")
    p.add_argument("--keep", metavar="DIR", help="keep the feature files in DIR (the JSON names each)")
    p.add_argument("--list", action="store_true", help="list the features and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def compat_command(args: argparse.Namespace) -> int:
    from parquet_core.compat import report
    from parquet_core.compat.features import select
    from parquet_core.compat.runner import run

    features = select(args.features, quick=args.quick)
    if args.list:
        for f in features:
            print(f"{f.id}\t{f.description}")
        return 0
    if not features:
        print("pqc compat: no feature matches --features", file=sys.stderr)
        return 2
    readers = [r.strip() for r in args.readers.split(",")] if args.readers else None
    memory = args.memory << 20 if args.memory else None
    pythons = parse_pythons(args.python)
    if args.writers:
        if pythons:
            raise ValueError("--python applies to the readers of a run, not to --writers")
        from parquet_core.compat.runner import run_writers
        result = run_writers(features, [w.strip() for w in args.writers.split(",")], readers,
                             timeout=args.timeout, memory=memory, keep=args.keep,
                             progress=not args.no_progress)
    else:
        result = run(features, readers, timeout=args.timeout, memory=memory, keep=args.keep,
                     progress=not args.no_progress, pythons=pythons)
    print(report.terminal(result))
    if args.markdown:
        Path(args.markdown).write_text(report.markdown_page(result), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(report.to_json(result), encoding="utf-8")
    if args.html:
        Path(args.html).write_text(report.to_html(result), encoding="utf-8")
    return 0


def parse_pythons(items: list[str]) -> dict[str, str]:
    """``["pyarrow=/tmp/venv/bin/python"]`` -> ``{"pyarrow": "/tmp/venv/bin/python"}``."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        name, path = name.strip(), path.strip()
        if not sep or not name or not path:
            raise ValueError(f"--python {item!r}: expected READER=PATH, e.g. pyarrow=/tmp/venv-pa15/bin/python")
        if name in out:
            raise ValueError(f"--python: two interpreters for {name!r}")
        out[name] = path
    return out
