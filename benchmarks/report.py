"""The performance page's tables, generated from the benchmarks' saved JSON results.

The benchmark scripts write every number with ``--json benchmarks/results/<name>.json``
(the commands are in ``SECTIONS``); this module turns those files into the Markdown
tables of ``docs/guide/performance.md``, each between ``<!-- bench:<name>:start -->`` and
``<!-- bench:<name>:end -->``::

    python -m benchmarks.report            # print the tables
    python -m benchmarks.report --docs     # rewrite them in docs/guide/performance.md
    python -m benchmarks.report --check    # exit 1 when the page differs from the JSON

It reads only the JSON (no timing, no engine import), so the page can be checked in the
test suite against the committed results.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "guide" / "performance.md"
MB = 1e6


class ReportError(Exception):
    """A results file the report cannot use, or a page whose markers are broken."""


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def _x(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}x"


def _gmean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _env_line(env: dict[str, Any]) -> str:
    load = env.get("loadavg_start")
    parts = [f"run {str(env.get('time', '?'))[:16].replace('T', ' ')}",
             f"parquet-core `{env.get('git_rev') or '?'}`",
             f"{env.get('cpu_count', '?')} CPUs",
             f"Python {env.get('python', '?')}", f"pyarrow {env.get('pyarrow', '?')}"]
    if load:
        parts.append(f"load average {load[0]:.1f} at start")
    return "; ".join(parts)


def _engine_cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "-"
    return _ms(cell.get("best_s")) if cell.get("status") == "ok" else str(cell.get("status"))


def render_read(r: dict[str, Any]) -> str:
    """Whole-table reads per variant (``read_bench --json``)."""
    engines = r["params"]["engines"]
    rows, ratios = [], []
    for v in r["variants"]:
        t = v.get("table")
        if v.get("error") or not t:
            rows.append([v["name"], "-"] + ["FAILED"] * len(engines) + ["-", "-", "-"])
            continue
        ratio = t["ratios"].get("pc/pa1")
        ratios.append(ratio)
        pc_mbps = t["mb_per_s"].get("pc")
        rows.append([v["name"], f"{v['file_bytes'] / MB:.1f}"]
                    + [_engine_cell(t["engines"].get(e)) for e in engines]
                    + ["-" if pc_mbps is None else f"{pc_mbps:.0f}", _x(ratio), t["check"]["status"]])
    rows.append(["geometric mean", ""] + [""] * len(engines) + ["", _x(_gmean(ratios)), ""])
    head = (f"Whole-table reads, {r['params']['rows']:,} rows, best of {r['params']['repeats']} "
            f"(ms); pc/pa1 > 1: parquet_core slower; check: every value compared with pyarrow's read "
            f"({_env_line(r['env'])}).")
    return head + "\n\n" + _table(["variant", "file MB"] + [f"{e} ms" for e in engines]
                                  + ["pc MB/s", "pc/pa1", "check"], rows)


def render_write(r: dict[str, Any]) -> str:
    """Whole-table writes per variant (``write_bench --json``)."""
    engines = r["params"]["engines"]
    rows, ratios, sizes = [], [], []
    for v in r["variants"]:
        ratio = v.get("ratios", {}).get("pc/pa1")
        size = v.get("size_ratios", {}).get("pc/pa1")
        ratios.append(ratio)
        sizes.append(size)
        bad = [f"{e}: {c['status']}" for e, c in v["engines"].items() if c["status"] not in ("ok", "n/a")]
        rows.append([v["name"]] + [_engine_cell(v["engines"].get(e)) for e in engines]
                    + [_x(ratio), "-" if size is None else f"{size:.3f}", ", ".join(bad) or "ok"])
    g = _gmean([s for s in sizes if s])
    rows.append(["geometric mean"] + [""] * len(engines)
                + [_x(_gmean([x for x in ratios if x])), "-" if g is None else f"{g:.3f}", ""])
    head = (f"Whole-table writes, {r['params']['rows']:,} rows, best of {r['params']['repeats']} (ms); "
            f"size = file size pc/pa1; check: values and layout read back with pyarrow "
            f"({_env_line(r['env'])}).")
    return head + "\n\n" + _table(["variant"] + [f"{e} ms" for e in engines]
                                  + ["pc/pa1", "size pc/pa1", "check"], rows)


def render_encryption(r: dict[str, Any]) -> str:
    """Write/read MB/s plaintext vs AES_GCM_V1 / AES_GCM_CTR_V1 (``encryption_bench --json``)."""
    keys = [("pc_write", "pc write"), ("pc_read", "pc read"), ("pa_write", "pa1 write"), ("pa_read", "pa1 read")]
    rows = []
    for row in r["results"]:
        cells = []
        for k, _ in keys:
            mbps = row.get(f"{k}_mbps")
            over = row.get(f"{k}_overhead")
            cells.append("n/a" if mbps is None else f"{mbps:.1f} MB/s"
                         + ("" if over is None else f" ({100 * over:+.1f} %)"))
        ok = row.get("pc_read_equal") is not False and row.get("pc_file_read_by_pyarrow_equal") is not False
        mode = {"none": "plaintext", "gcm": "AES_GCM_V1", "ctr": "AES_GCM_CTR_V1"}.get(row["mode"], row["mode"])
        rows.append([row["variant"], mode] + cells + ["ok" if ok else "MISMATCH"])
    head = (f"Encryption, {r['rows']:,} rows ({r['mb']:.1f} MB in Arrow), {r['clock']} time, best of the "
            f"rounds; (+x %) = time over plaintext, same engine and variant; check: the file read back "
            f"by parquet_core and by pyarrow equals the source.")
    return head + "\n\n" + _table(["variant", "mode"] + [t for _, t in keys] + ["check"], rows)


def render_alp(r: dict[str, Any]) -> str:
    """ALP vs BYTE_STREAM_SPLIT + zstd and PLAIN + zstd (``alp_bench --json``)."""
    rows = []
    for series, s in r["series"].items():
        for name, v in s["variants"].items():
            rows.append([series, s["physical_type"], name, f"{v['bits_per_value']:.2f}",
                         f"{v['ratio_vs_plain']:.3f}", f"{v['encode_mb_s']:.0f}", f"{v['decode_mb_s']:.0f}"])
    head = (f"ALP (preview), {r['values']:,} values a series in pages of {r['page_values']:,}, "
            f"best of {r['repeat']}, CPU time; every page decoded back and compared with the input.")
    return head + "\n\n" + _table(["series", "type", "encoding", "bits/value", "size vs PLAIN",
                                   "encode MB/s", "decode MB/s"], rows)


def render_variant(r: dict[str, Any]) -> str:
    """VARIANT values encoded, decoded and read (``variant_bench.py --json``)."""
    rows = [[name, f"{rate / 1e3:.1f}"] for name, rate in r["per_second"].items()]
    head = f"VARIANT, {r['values']:,} event records (nested objects), best of the repeats."
    return head + "\n\n" + _table(["operation", "thousand values/s"], rows)


def render_encodings(r: dict[str, Any]) -> str:
    """Decode and encode kernels alone (``bench_encodings.py --json``)."""
    rows = []
    for row in r["results"]:
        pa_mbps = row.get("arrow_mb_per_s")
        ratio = row["best_seconds"] / row["arrow_best_seconds"] if row.get("arrow_best_seconds") else None
        rows.append([row["side"], f"`{row['case']}`", f"{row['values']:,}", _ms(row["best_seconds"]),
                     f"{row['values_per_s'] / 1e6:.1f}", f"{row['mb_per_s']:.0f}",
                     "-" if pa_mbps is None else f"{pa_mbps:.0f}", _x(ratio)])
    head = (f"Encoding kernels alone, best of {r['repeat']} (wall time); decode cases of {r['values']:,} "
            f"values in pages of {r['page_values']:,}, encode cases of {r['encode_values']:,}; MB/s of the "
            f"input; pyarrow = its whole writer with the same encoding (pc/pa > 1: parquet_core slower).")
    return head + "\n\n" + _table(["side", "case", "values", "ms", "M values/s", "MB/s", "pyarrow MB/s",
                                   "pc/pa"], rows)


def render_iter_batches(r: dict[str, Any]) -> str:
    """``iter_batches`` time to the first batch and peak memory, and threaded reads (``iter_batches_bench``)."""
    b, t = r["iter_batches"], r["threads"]
    rows = []
    for mode, key, what in (("first", "first_s", "first batch"), ("all", "total_s", "every batch")):
        pc_r, pa_r = b[f"{mode}_pc"], b[f"{mode}_pa"]
        rows.append([f"`iter_batches`, {what}", f"{pc_r[key]:.3f} s", f"{pa_r[key]:.3f} s",
                     _x(pc_r[key] / pa_r[key]), f"{pc_r['peak_mb']:.0f} / {pa_r['peak_mb']:.0f}"])
    rows.append(["`read_table`, 1 thread", f"{t['pc_1thread_s']:.3f} s", f"{t['pa_1thread_s']:.3f} s",
                 _x(t["pc_1thread_s"] / t["pa_1thread_s"]), ""])
    rows.append(["`read_table`, threads", f"{t['pc_threads_s']:.3f} s", f"{t['pa_threads_s']:.3f} s",
                 _x(t["pc_threads_s"] / t["pa_threads_s"]), ""])
    head = (f"`iter_batches(batch_size={r['batch_size']:,})` over {r['rows']:,} rows in one row group, and "
            f"whole-file reads of 8 row groups, {r['cpus']} CPUs, wall time, best of the repeats; peak RSS in MB.")
    return head + "\n\n" + _table(["read", "parquet_core", "pyarrow", "pc/pa", "peak MB pc / pa"], rows)


def render_dataset(r: dict[str, Any]) -> str:
    """Datasets against ``pyarrow.dataset`` (``bench_dataset --json``): CPU time, best of the repeats."""
    rows = [[row["name"], _ms(row["ours_s"]), _ms(row["pyarrow_s"]), _x(row["ours_s"] / row["pyarrow_s"]),
             row.get("note", "")] for row in r["rows"]]
    out = (f"A Hive dataset of {r['files']:,} files x 200 rows written by pyarrow, with and without "
           f"`_metadata`; CPU time, best of {r['repeat']}, both engines single-threaded "
           f"(pc/pa > 1: parquet_core slower); {_env_line(r.get('env') or {})}.\n\n"
           + _table(["measure", "parquet_core ms", "pyarrow.dataset ms", "pc/pa", "note"], rows))
    s3 = r.get("s3")
    if s3:
        s3_rows = []
        for what, key in (("read one column", "read"), ("plan (list + schema)", "plan")):
            for engine in ("ours", "pyarrow"):
                t, requests, nbytes = s3[key][engine]
                s3_rows.append([what, "parquet_core" if engine == "ours" else "pyarrow", _ms(t),
                                f"{requests:,}", f"{nbytes:,}"])
        out += (f"\n\nS3 (moto on 127.0.0.1), {s3['files']} files x 10 float columns, the column read is "
                f"{s3['column_bytes']:,} compressed bytes; requests and bytes counted at the same s3fs client "
                "(pyarrow through `FSSpecHandler`):\n\n"
                + _table(["query", "engine", "wall ms", "requests", "bytes"], s3_rows))
    return out


def render_real_tables(r: dict[str, Any]) -> str:
    """Issue 32's real-table cases (``real_tables_bench --json``): CPU time, one thread each."""
    rows = [[row["case"], row["read"], _ms(row["pc_s"]), _ms(row["pa_s"]), _x(row["pc_s"] / row["pa_s"])]
            for row in r["rows"]]
    return (f"CPU time (`time.process_time`), best of {r['repeats']}, parquet_core `use_threads=False` and "
            f"pyarrow with one thread, every result checked equal to pyarrow's (pc/pa > 1: parquet_core "
            f"slower); {_env_line(r.get('env') or {})}.\n\n"
            + _table(["case", "measure", "parquet_core ms", "pyarrow ms", "pc/pa"], rows))


def render_spark_table(r: dict[str, Any]) -> str:
    """A Spark-written table read column by column (``spark_table_bench --json``)."""
    rows = [[row["read"], row["column"] or "all five", _ms(row["pc_s"]), _ms(row["pa_s"]), _x(row["ratio"])]
            for row in r["rows"]]
    return (f"One file of the Spark adapter's floor table ({r['file_rows']:,} rows written by "
            f"`{r['created_by'].split(' (')[0]}`, 64 KiB snappy pages), `read_row_group(0, columns=...)` "
            f"and `to_arrow()` against pyarrow's `read_row_group`, both one thread, opening included; CPU "
            f"time, best of 2 x {r['repeat']} (pc/pa > 1: parquet_core slower); {_env_line(r.get('env') or {})}."
            "\n\n" + _table(["read", "column", "parquet_core ms", "pyarrow ms", "pc/pa"], rows))


#: name -> (results file, the command that makes it, renderer)
SECTIONS: dict[str, tuple[str, str, Callable[[dict[str, Any]], str]]] = {
    "read": ("read.json", "python -m benchmarks.read_bench --quick --check --engines pc,pa1 -n 2 --budget 5 "
                          "--no-footer --json benchmarks/results/read.json", render_read),
    "write": ("write.json", "python -m benchmarks.write_bench --quick --engines pc,pa1 -n 2 --budget 5 "
                            "--per-column none --inputs none --json benchmarks/results/write.json", render_write),
    "encryption": ("encryption.json", "python -m benchmarks.encryption_bench --rows 100000 -n 2 "
                                      "--json benchmarks/results/encryption.json", render_encryption),
    "alp": ("alp.json", "python -m benchmarks.alp_bench --values 200000 --repeat 2 "
                        "--json benchmarks/results/alp.json", render_alp),
    "encodings": ("encodings.json", "python benchmarks/bench_encodings.py --values 200000 --encode-values 100000 "
                                    "--repeat 2 --json benchmarks/results/encodings.json", render_encodings),
    "iter_batches": ("iter_batches.json", "python -m benchmarks.iter_batches_bench --rows 500000 --read-rows 200000 "
                                          "--repeat 2 --json benchmarks/results/iter_batches.json",
                     render_iter_batches),
    "dataset": ("dataset.json", "python -m benchmarks.bench_dataset --files 300 --s3-files 10 --repeat 2 "
                                "--json benchmarks/results/dataset.json", render_dataset),
    "spark_table": ("spark_table.json", "python -m benchmarks.spark_table_bench --repeat 7 "
                                        "--json benchmarks/results/spark_table.json", render_spark_table),
    "real_tables": ("real_tables.json", "python -m benchmarks.real_tables_bench --cases wide,footer --repeats 5 "
                                        "--json benchmarks/results/real_tables.json", render_real_tables),
    "variant": ("variant.json", "python benchmarks/variant_bench.py --values 5000 --repeat 2 "
                                "--json benchmarks/results/variant.json", render_variant),
}


def render(name: str, results: Path = RESULTS) -> str:
    """The Markdown of one section, from its results file."""
    file, command, renderer = SECTIONS[name]
    path = results / file
    if not path.is_file():
        raise ReportError(f"{path}: no results for the {name!r} tables; make them with `{command}`")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        body = renderer(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: not a {name!r} benchmark result ({type(exc).__name__}: {exc})") from exc
    return f"{body}\n\nMade by `{command}`; regenerate this table with `python -m benchmarks.report --docs`."


_MARKED = re.compile(r"(<!-- bench:(?P<name>[a-z_]+):start -->\n)(?P<body>.*?)(<!-- bench:(?P=name):end -->)", re.S)


def regenerate(text: str, results: Path = RESULTS) -> str:
    """*text* with every marked section replaced by the tables of the results in *results*."""
    unknown = [m.group("name") for m in _MARKED.finditer(text) if m.group("name") not in SECTIONS]
    if unknown:
        raise ReportError(f"unknown benchmark section(s) {unknown}; known: {sorted(SECTIONS)}")
    starts = re.findall(r"^<!-- bench:[a-z_]+:start -->$", text, re.M)
    ends = re.findall(r"^<!-- bench:[a-z_]+:end -->$", text, re.M)
    if not len(starts) == len(ends) == len(_MARKED.findall(text)):
        raise ReportError("a <!-- bench:NAME:start --> marker has no matching end marker")
    return _MARKED.sub(lambda m: m.group(1) + render(m.group("name"), results) + "\n" + m.group(4), text)


def stale_sections(text: str, results: Path = RESULTS) -> list[str]:
    """The names of the marked sections whose body differs from what the results make."""
    fresh = {m.group("name"): m.group("body") for m in _MARKED.finditer(regenerate(text, results))}
    return [m.group("name") for m in _MARKED.finditer(text) if m.group("body") != fresh[m.group("name")]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", action="store_true", help=f"rewrite the tables in {PAGE.relative_to(ROOT)}")
    ap.add_argument("--check", action="store_true", help="exit 1 when the page's tables are stale")
    ap.add_argument("--results", type=Path, default=RESULTS, help="folder of the JSON results")
    ap.add_argument("--page", type=Path, default=PAGE)
    args = ap.parse_args(argv)
    try:
        if args.docs or args.check:
            text = args.page.read_text(encoding="utf-8")
            if args.check:
                stale = stale_sections(text, args.results)
                if stale:
                    print(f"{args.page}: stale benchmark tables {stale}; run `python -m benchmarks.report --docs`")
                    return 1
                print(f"{args.page}: the benchmark tables are current")
                return 0
            new = regenerate(text, args.results)
            if new != text:
                args.page.write_text(new, encoding="utf-8")
            print(f"{args.page}: {'rewritten' if new != text else 'already current'}")
            return 0
        for name in SECTIONS:
            print(f"## {name}\n\n{render(name, args.results)}\n")
        return 0
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
