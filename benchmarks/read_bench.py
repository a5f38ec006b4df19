"""Read benchmark: parquet_core vs pyarrow vs fastparquet.

Run from the repository root::

    python -m benchmarks.read_bench --quick --check          # ~200k rows, smoke run
    python -m benchmarks.read_bench --check --json benchmarks/results/full.json   # 2M rows

See ``benchmarks/README.md`` for what is measured and how to read it.

Engines (each call includes opening the file and parsing its footer):

* ``pc``    ``parquet_core.read_table(path, columns=[c], use_threads=False)``
* ``pcMT``  the same with ``use_threads=True`` (the default; compare with ``paMT``)
* ``pa1``   ``pyarrow.parquet.read_table(path, columns=[c], use_threads=False)``
* ``paMT``  the same with ``use_threads=True``
* ``fp``    ``fastparquet.ParquetFile(path).to_pandas(columns=[c])``

Every cell is the best of ``--repeats`` runs (gc collected before and
disabled during each run, like ``timeit``); a cell whose runs add up to more
than ``--budget`` seconds stops repeating early.  A reader that raises is
reported as FAILED with its error; with ``--check`` a parquet_core result
that differs from pyarrow's is reported as WRONG and never enters a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):  # ``python benchmarks/read_bench.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks._harness import src_sha1 as _src_sha1
from benchmarks._harness import environment as _env
from benchmarks._harness import err as _err
from benchmarks._harness import fmt_ms, fmt_ratio, render_table, run_once, snapshot_engine
from benchmarks._harness import gmean as _gmean
from benchmarks._harness import loadavg as _loadavg
from benchmarks._harness import log as _log
from benchmarks import read_bench_data as data
from benchmarks.read_bench_check import check_array, check_table

ENGINES: dict[str, str] = {
    "pc": "parquet_core.read_table(use_threads=False)",
    "pcMT": "parquet_core.read_table(use_threads=True)",
    "pa1": "pyarrow read_table(use_threads=False)",
    "paMT": "pyarrow read_table(use_threads=True)",
    "fp": "fastparquet ParquetFile(...).to_pandas()",
}

SHORT: dict[str, str] = {
    "dict_none": "D-none", "dict_snappy": "D-snap", "dict_zstd": "D-zstd",
    "plain_none": "P-none", "plain_snappy": "P-snap", "delta_binary_packed": "DBP",
    "delta_length_byte_array": "DLBA", "delta_byte_array": "DBA",
    "byte_stream_split": "BSS", "rle_bool": "RLE", "dict_snappy_v2": "D-v2",
    "small_pages": "P-1k",
}

_ENC_ABBR = {
    "PLAIN": "PLAIN", "PLAIN_DICTIONARY": "DICT", "RLE_DICTIONARY": "DICT",
    "DELTA_BINARY_PACKED": "DBP", "DELTA_LENGTH_BYTE_ARRAY": "DLBA",
    "DELTA_BYTE_ARRAY": "DBA", "BYTE_STREAM_SPLIT": "BSS", "RLE": "RLE",
    "BIT_PACKED": "BITPK",
}

MB = 1e6



# -- engines -------------------------------------------------------------------




def load_engines(selected: list[str]) -> dict[str, tuple[Callable[[str, list[str] | None], Any] | None, str | None]]:
    """name -> (reader(path, columns) or None, import error)."""
    out: dict[str, tuple[Any, str | None]] = {}
    for name in selected:
        try:
            if name == "pc":
                import parquet_core as pcore

                def f(path: str, cols: list[str] | None, _pc: Any = pcore) -> Any:
                    return _pc.read_table(path, columns=cols, use_threads=False)
            elif name == "pcMT":
                import parquet_core as pcore

                def f(path: str, cols: list[str] | None, _pc: Any = pcore) -> Any:
                    return _pc.read_table(path, columns=cols, use_threads=True)
            elif name == "pa1":
                def f(path: str, cols: list[str] | None) -> Any:
                    return pq.read_table(path, columns=cols, use_threads=False)
            elif name == "paMT":
                def f(path: str, cols: list[str] | None) -> Any:
                    return pq.read_table(path, columns=cols, use_threads=True)
            elif name == "fp":
                import fastparquet

                def f(path: str, cols: list[str] | None, _fp: Any = fastparquet) -> Any:
                    return _fp.ParquetFile(path).to_pandas(columns=cols)
            else:
                raise ValueError(f"unknown engine {name!r}")
            out[name] = (f, None)
        except Exception as exc:  # noqa: BLE001 - report, never crash
            out[name] = (None, _err(exc))
            traceback.print_exc(limit=3, file=sys.stderr)
    return out



def time_round_robin(calls: dict[str, Callable[[], Any]], repeats: int, budget: float,
                     on_first: Callable[[str, Any], str | None] | None = None) -> dict[str, dict[str, Any]]:
    """Best-of-*repeats* for several engines, interleaved: round r runs every engine once,
    so slow drift in machine load hits all engines alike.  An engine that raises is
    FAILED (and not run again); ``on_first(engine, result)`` sees each engine's first
    result outside the timed region and may return an error that marks it WRONG."""
    cells: dict[str, dict[str, Any]] = {e: {"status": "ok", "times_s": []} for e in calls}
    for _ in range(max(repeats, 1)):
        for e, fn in calls.items():
            cell = cells[e]
            if cell["status"] != "ok" or sum(cell["times_s"]) > budget:
                continue
            try:
                dt, result = run_once(fn)
            except Exception as exc:  # noqa: BLE001 - a failing reader is a result, not a crash
                cell.update(status="FAILED", error=_err(exc))
                continue
            cell["times_s"].append(dt)
            if on_first is not None and len(cell["times_s"]) == 1:
                wrong = on_first(e, result)
                if wrong:
                    cell.update(status="WRONG", error=wrong)
            result = None
    for cell in cells.values():
        if cell["status"] == "ok":
            cell["best_s"] = min(cell["times_s"])
            cell["runs"] = len(cell["times_s"])
    return cells


# -- one file variant ------------------------------------------------------------

def column_sizes(md: pq.FileMetaData) -> dict[str, dict[str, Any]]:
    """Per top-level column: compressed/uncompressed bytes summed over row groups, encodings."""
    out: dict[str, dict[str, Any]] = {}
    for rg in range(md.num_row_groups):
        g = md.row_group(rg)
        for j in range(g.num_columns):
            c = g.column(j)
            name = c.path_in_schema.split(".")[0]
            d = out.setdefault(name, {"compressed_bytes": 0, "uncompressed_bytes": 0,
                                      "encodings": set(), "codec": c.compression})
            d["compressed_bytes"] += c.total_compressed_size
            d["uncompressed_bytes"] += c.total_uncompressed_size
            d["encodings"].update(c.encodings)
    for d in out.values():
        d["encodings"] = sorted(d["encodings"])
    return out


_ENC_BY_ID = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
              6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}


def data_page_encodings(path: Path) -> dict[str, dict[str, int]] | None:
    """Per top-level column: {data-page encoding: page count} from the footer's
    ``encoding_stats`` (pyarrow does not expose them; fastparquet's thrift
    parser does).  None when unavailable."""
    try:
        import fastparquet

        fmd = fastparquet.ParquetFile(str(path)).fmd
        out: dict[str, dict[str, int]] = {}
        for rg in fmd.row_groups:
            for ch in rg.columns:
                m = ch.meta_data
                name = m.path_in_schema[0]
                d = out.setdefault(name, {})
                for st in m.encoding_stats or []:
                    if st.page_type in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
                        enc = _ENC_BY_ID.get(st.encoding, str(st.encoding))
                        d[enc] = d.get(enc, 0) + st.count
        return out if all(out.values()) else None
    except Exception:  # noqa: BLE001
        return None


def enc_label(row: dict[str, Any]) -> str:
    """Data-page encodings (exact when encoding_stats are known), else the
    chunk's encodings list minus the levels' RLE."""
    stats = row.get("data_page_encodings")
    if stats:
        return "+".join(_ENC_ABBR.get(e, e) for e in sorted(stats, key=lambda e: -stats[e]))
    encodings = row["encodings"]
    names = [e for e in encodings if e != "RLE"] or list(encodings)
    return "+".join(sorted({_ENC_ABBR.get(e, e) for e in names}))


def derive(row: dict[str, Any]) -> None:
    """Add MB/s (on total_uncompressed_size) and pc ratios to a result row."""
    size = row["uncompressed_bytes"]
    mbps: dict[str, float] = {}
    best: dict[str, float] = {}
    for e, cell in row["engines"].items():
        if cell.get("status") == "ok" and cell.get("best_s"):
            best[e] = cell["best_s"]
            mbps[e] = size / MB / cell["best_s"]
    row["mb_per_s"] = mbps
    row["ratios"] = {}
    if "pc" in best:
        for e in ("pa1", "paMT", "fp"):
            if e in best:
                row["ratios"][f"pc/{e}"] = best["pc"] / best[e]
    if "pcMT" in best and "paMT" in best:
        row["ratios"]["pcMT/paMT"] = best["pcMT"] / best["paMT"]


def bench_variant(variant: data.Variant, args: argparse.Namespace, engines: dict[str, Any],
                  table_cache: dict[str, pa.Table]) -> dict[str, Any]:
    res: dict[str, Any] = {"name": variant.name, "short": SHORT.get(variant.name, variant.name),
                           "description": variant.description, "write_options": variant.write_kwargs(),
                           "columns": [], "table": None}
    try:
        t0 = time.perf_counter()
        path, generated = data.ensure_variant(args.cache_dir, variant, args.rows, args.seed,
                                              args.row_group_size, table_cache, args.regenerate)
        if generated:
            _log(f"  wrote {path.name} in {time.perf_counter() - t0:.1f}s")
        md = pq.read_metadata(path)
    except Exception as exc:  # noqa: BLE001
        res["error"] = f"could not write/read the variant with pyarrow: {_err(exc)}"
        _log(f"  {res['error']}")
        return res
    res.update(path=str(path), file_bytes=path.stat().st_size, num_rows=md.num_rows,
               num_row_groups=md.num_row_groups)
    sizes = column_sizes(md)
    page_encs = data_page_encodings(path)
    names = list(md.schema.to_arrow_schema().names)

    if args.all_columns:
        cols = names
    else:
        cols = [c for c in names if c in variant.focus]
    if args.columns:
        cols = [c for c in cols if c in args.columns]

    ref = pq.read_table(path, use_threads=True) if args.check else None

    def run_row(label: str, selection: list[str] | None, size_cols: list[str]) -> dict[str, Any]:
        row: dict[str, Any] = {
            "column": label,
            "encodings": sorted({e for c in size_cols for e in sizes[c]["encodings"]}),
            "compressed_bytes": sum(sizes[c]["compressed_bytes"] for c in size_cols),
            "uncompressed_bytes": sum(sizes[c]["uncompressed_bytes"] for c in size_cols),
            "engines": {}, "check": {"status": "not run"},
        }
        if page_encs is not None and selection is not None:
            row["data_page_encodings"] = page_encs.get(selection[0])
        def on_first(e: str, result: Any) -> str | None:
            if e not in ("pc", "pcMT") or not args.check:
                return None
            try:
                if selection is None:
                    ok, detail = check_table(result, ref, names, seed=args.seed)
                else:
                    ok, detail = check_array(result.column(selection[0]), ref.column(selection[0]),
                                             seed=args.seed)
            except Exception as exc:  # noqa: BLE001
                ok, detail = False, f"check raised {_err(exc)}"
            if row["check"].get("status") != "WRONG":   # both pc engines are checked; a WRONG stays
                row["check"] = {"status": "ok" if ok else "WRONG", "detail": detail if ok else f"{e}: {detail}"}
            return None if ok else detail

        calls = {e: (lambda fn=fn: fn(str(path), selection)) for e, (fn, _) in engines.items() if fn is not None}
        cells = time_round_robin(calls, args.repeats, args.budget, on_first)
        for e, (fn, imp_err) in engines.items():
            row["engines"][e] = cells[e] if fn is not None else \
                {"status": "n/a", "error": f"import failed: {imp_err}"}
        derive(row)
        return row

    for c in cols:
        _log(f"  {variant.name}: {c}")
        res["columns"].append(run_row(c, [c], [c]))
    if not args.columns or args.whole_table:
        _log(f"  {variant.name}: <whole table>")
        res["table"] = run_row("<table>", None, names)
    return res


# -- footer-only parsing ------------------------------------------------------------

def _calibrate(fn: Callable[[], Any], target: float) -> int:
    """Loops per timed sample so that one sample lasts about *target* seconds."""
    fn()  # warm-up (imports, page cache)
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target or loops >= 1 << 20:
            return loops
        loops *= 2 if dt <= 0 else max(2, min(10, int(target / dt) + 1))


def _autorange_round_robin(calls: dict[str, Callable[[], Any]], repeats: int, target: float) -> dict[str, dict[str, Any]]:
    """timeit-style per-call times for fast calls, the engines' samples interleaved."""
    cells: dict[str, dict[str, Any]] = {}
    loops: dict[str, int] = {}
    for k, fn in calls.items():
        try:
            loops[k] = _calibrate(fn, target)
            cells[k] = {"status": "ok", "times_s": [], "loops": loops[k]}
        except Exception as exc:  # noqa: BLE001
            cells[k] = {"status": "FAILED", "error": _err(exc)}
    for _ in range(max(repeats, 1)):
        for k, fn in calls.items():
            if cells[k]["status"] != "ok":
                continue
            try:
                dt, _ = run_once(lambda: [fn() for _ in range(loops[k])])
            except Exception as exc:  # noqa: BLE001
                cells[k] = {"status": "FAILED", "error": _err(exc)}
                continue
            cells[k]["times_s"].append(dt / loops[k])
    for cell in cells.values():
        if cell["status"] == "ok":
            cell["best_s"] = min(cell["times_s"])
    return cells


def bench_footer(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"shape": dict(data.FOOTER_SHAPE), "rows": []}
    try:
        path = data.ensure_footer_file(args.cache_dir, args.seed, args.regenerate)
        md = pq.read_metadata(path)
    except Exception as exc:  # noqa: BLE001
        out["error"] = _err(exc)
        return out
    out.update(path=str(path), file_bytes=path.stat().st_size, footer_bytes=md.serialized_size,
               num_row_groups=md.num_row_groups, num_columns=md.num_columns)
    p = str(path)

    pc_mod: Any = None
    pc_err = None
    try:
        import parquet_core as pc_mod
    except Exception as exc:  # noqa: BLE001
        pc_err = _err(exc)
    fp_mod: Any = None
    fp_err = None
    try:
        import fastparquet as fp_mod
    except Exception as exc:  # noqa: BLE001
        fp_err = _err(exc)

    def pc_groups() -> None:
        m = pc_mod.read_metadata(p)
        for i in range(m.num_row_groups):
            m.row_group(i)

    def pa_groups() -> None:
        m = pq.read_metadata(p)
        for i in range(m.num_row_groups):
            m.row_group(i)

    def pc_walk() -> None:
        m = pc_mod.read_metadata(p)
        for i in range(m.num_row_groups):
            g = m.row_group(i)
            for j in range(g.num_columns):
                g.column(j).statistics

    def pa_walk() -> None:
        m = pq.read_metadata(p)
        for i in range(m.num_row_groups):
            g = m.row_group(i)
            for j in range(g.num_columns):
                s = g.column(j).statistics
                if s is not None and s.has_min_max:
                    s.min, s.max

    target = 0.05 if args.quick else 0.2
    cases = [
        ("parse", "pc", lambda: pc_mod.read_metadata(p), pc_err),
        ("parse", "pa", lambda: pq.read_metadata(p), None),
        ("parse", "fp", lambda: fp_mod.ParquetFile(p), fp_err),
        ("parse+groups", "pc", pc_groups, pc_err),
        ("parse+groups", "pa", pa_groups, None),
        ("parse+stats", "pc", pc_walk, pc_err),
        ("parse+stats", "pa", pa_walk, None),
    ]
    cells = _autorange_round_robin({(w, e): fn for w, e, fn, err in cases if err is None},
                                   max(args.repeats, 5), target)
    for what, eng, fn, imp_err in cases:
        cell = {"status": "n/a", "error": f"import failed: {imp_err}"} if imp_err else cells[(what, eng)]
        out["rows"].append({"what": what, "engine": eng, **cell})
    if args.check and pc_err is None:
        try:
            out["check"] = _check_footer(pc_mod.read_metadata(p), md)
        except Exception as exc:  # noqa: BLE001
            out["check"] = {"status": "WRONG", "detail": f"check raised {_err(exc)}"}
    best = {(r["what"], r["engine"]): r.get("best_s") for r in out["rows"] if r["status"] == "ok"}
    for r in out["rows"]:
        if r["engine"] != "pc" or r["status"] != "ok":
            continue
        for other in ("pa", "fp"):
            if best.get((r["what"], other)):
                r[f"pc/{other}"] = r["best_s"] / best[(r["what"], other)]
    return out


def _check_footer(m: Any, ref: pq.FileMetaData) -> dict[str, Any]:
    for attr in ("num_rows", "num_row_groups", "num_columns"):
        if getattr(m, attr) != getattr(ref, attr):
            return {"status": "WRONG", "detail": f"{attr} {getattr(m, attr)} != pyarrow {getattr(ref, attr)}"}
    for i in range(ref.num_row_groups):
        g, rg = m.row_group(i), ref.row_group(i)
        if g.num_rows != rg.num_rows:
            return {"status": "WRONG", "detail": f"row group {i} num_rows {g.num_rows} != {rg.num_rows}"}
        for j in range(rg.num_columns):
            c, rc = g.column(j), rg.column(j)
            for attr in ("num_values", "total_compressed_size", "total_uncompressed_size", "data_page_offset"):
                if getattr(c, attr) != getattr(rc, attr):
                    return {"status": "WRONG", "detail": f"rg {i} col {j} {attr}: "
                                                         f"{getattr(c, attr)} != {getattr(rc, attr)}"}
            s, rs = c.statistics, rc.statistics
            if rs is not None and rs.has_null_count and s is not None and \
                    getattr(s, "null_count", rs.null_count) != rs.null_count:
                return {"status": "WRONG", "detail": f"rg {i} col {j} null_count {s.null_count} != {rs.null_count}"}
    return {"status": "ok", "detail": "row groups, chunk sizes/offsets/num_values, null counts match pyarrow"}


# -- reporting ---------------------------------------------------------------------


def fmt_us(s: float) -> str:
    us = s * 1e6
    return f"{us:,.0f} us" if us < 10_000 else f"{us / 1e3:,.1f} ms"



def _cell(row: dict[str, Any], e: str) -> str:
    c = row["engines"].get(e)
    if c is None:
        return "-"
    if c["status"] == "ok":
        return fmt_ms(c["best_s"])
    return c["status"]



def render_variant(v: dict[str, Any], engines: list[str]) -> str:
    head = f"== {v['name']} — {v['description']}"
    if v.get("error"):
        return f"{head}\n   FAILED: {v['error']}"
    head += (f"\n   file {v['file_bytes'] / MB:.1f} MB, {v['num_rows']:,} rows, "
             f"{v['num_row_groups']} row group(s); times in ms (best of repeats)")
    headers = ["column", "enc", "unc MB"] + [f"{e} ms" for e in engines] + \
        ["pc MB/s", "pa1 MB/s", "pc/pa1", "pcMT/paMT", "pc/fp", "check"]
    rows = []
    notes = []
    for r in v["columns"] + ([v["table"]] if v["table"] else []):
        m = r["mb_per_s"]
        rows.append([r["column"], enc_label(r) if r["column"] != "<table>" else "",
                     f"{r['uncompressed_bytes'] / MB:.1f}"]
                    + [_cell(r, e) for e in engines]
                    + [f"{m['pc']:.0f}" if "pc" in m else "-", f"{m['pa1']:.0f}" if "pa1" in m else "-",
                       fmt_ratio(r["ratios"].get("pc/pa1")), fmt_ratio(r["ratios"].get("pcMT/paMT")),
                       fmt_ratio(r["ratios"].get("pc/fp")), r["check"]["status"]])
    out = head + "\n" + render_table(headers, rows, right=set(range(2, len(headers) - 1)))
    notes = _grouped_failures([v], with_variant=False)
    if notes:
        out += "\n" + "\n".join(notes)
    return out


def _grouped_failures(variants: list[dict[str, Any]], with_variant: bool = True) -> list[str]:
    """FAILED / WRONG cells grouped by (status, engine, error), one line per group."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for v in variants:
        for r in v["columns"] + ([v["table"]] if v.get("table") else []):
            for e, c in r["engines"].items():
                if c.get("status") in ("FAILED", "WRONG"):
                    where = f"{v['name']}/{r['column']}" if with_variant else r["column"]
                    groups.setdefault((c["status"], e, str(c.get("error"))), []).append(where)
    lines = []
    for (status, e, err), where in groups.items():
        shown = ", ".join(where[:8]) + (f", ... ({len(where)} cells)" if len(where) > 8 else "")
        lines.append(f"   {status} {e} [{shown}]: {err}")
    return lines



def render_summary(result: dict[str, Any], engines: list[str]) -> str:
    parts: list[str] = []
    variants = [v for v in result["variants"] if not v.get("error")]

    # whole-table reads
    rows = []
    for v in variants:
        t = v.get("table")
        if not t:
            continue
        rows.append([v["name"], f"{v['file_bytes'] / MB:.1f}", f"{t['uncompressed_bytes'] / MB:.1f}"]
                    + [_cell(t, e) for e in engines]
                    + [f"{t['mb_per_s']['pc']:.0f}" if "pc" in t["mb_per_s"] else "-",
                       fmt_ratio(t["ratios"].get("pc/pa1")), fmt_ratio(t["ratios"].get("pc/paMT")),
                       fmt_ratio(t["ratios"].get("pc/fp")), t["check"]["status"]])
    if rows:
        headers = ["variant", "file MB", "unc MB"] + [f"{e} ms" for e in engines] + \
            ["pc MB/s", "pc/pa1", "pc/paMT", "pc/fp", "check"]
        parts.append("== Whole-table reads (ms, best of repeats)\n" + render_table(
            headers, rows, right=set(range(1, len(headers) - 1))))

    # per-column ratio matrices
    col_names = list(data.COLUMNS)
    for key, title in (("pc/pa1", "time(parquet_core) / time(pyarrow, 1 thread)"),
                       ("pc/fp", "time(parquet_core) / time(fastparquet)")):
        mat = []
        for c in col_names + ["<table>"]:
            line = [c]
            vals = []
            for v in variants:
                r = v["table"] if c == "<table>" else next((x for x in v["columns"] if x["column"] == c), None)
                if r is None:
                    line.append("")
                    continue
                x = r["ratios"].get(key)
                if x is None:
                    pcs = r["engines"].get("pc", {}).get("status")
                    other = r["engines"].get(key.split("/")[1], {}).get("status")
                    line.append("pcFAIL" if pcs == "FAILED" else "WRONG" if pcs == "WRONG"
                                else f"{key.split('/')[1]}FAIL" if other == "FAILED" else "-")
                else:
                    line.append(f"{x:.2f}")
                    vals.append(x)
            g = _gmean(vals)
            line.append(f"{g:.2f}" if g else "-")
            if any(cell not in ("", "-") for cell in line[1:]):
                mat.append(line)
        if key.split("/")[1] in engines and "pc" in engines and \
                any(any(cell not in ("", "-") for cell in m[1:]) for m in mat):
            parts.append(f"== {title}  (per column x variant; >1 = parquet_core slower)\n" + render_table(
                ["column"] + [v["short"] for v in variants] + ["gmean"], mat))

    # slowest
    cells = [(r["ratios"].get("pc/pa1"), r["ratios"].get("pc/fp"), v["name"], r["column"])
             for v in variants for r in v["columns"]]
    for idx, key in ((0, "pyarrow (1 thread)"), (1, "fastparquet")):
        ranked = sorted((c for c in cells if c[idx] is not None), key=lambda c: -c[idx])[:10]
        if ranked:
            parts.append(f"== Slowest columns relative to {key}\n" + "\n".join(
                f"   {c[idx]:7.2f}x  {c[3]:<11} in {c[2]}" for c in ranked))

    # failures
    fails = [f"   variant {v['name']}: {v['error']}" for v in result["variants"] if v.get("error")]
    fails += _grouped_failures(variants)
    if fails:
        parts.append(f"== Failures ({len(fails)})\n" + "\n".join(fails))
    return "\n\n".join(parts)


def render_footer(f: dict[str, Any]) -> str:
    s = f["shape"]
    head = (f"== Footer-only parsing: {s['num_columns']} columns x {s['num_row_groups']} row groups "
            f"x {s['rows_per_group']} rows")
    if f.get("error"):
        return f"{head}\n   FAILED: {f['error']}"
    head += f"\n   footer {f['footer_bytes'] / 1e3:.1f} kB of a {f['file_bytes'] / 1e3:.0f} kB file; best per-call time"
    rows = []
    for r in f["rows"]:
        rows.append([r["what"], r["engine"], fmt_us(r["best_s"]) if r["status"] == "ok" else r["status"],
                     fmt_ratio(r.get("pc/pa")) if r["engine"] == "pc" else "",
                     fmt_ratio(r.get("pc/fp")) if r["engine"] == "pc" else "",
                     (r.get("error") or "")[:100]])
    out = head + "\n" + render_table(["what", "engine", "time", "pc/pa", "pc/fp", "error"], rows,
                                     right={2, 3, 4})
    if f.get("check"):
        out += f"\n   check: {f['check']['status']} ({f['check']['detail']})"
    return out


# -- main ----------------------------------------------------------------------------


def _header(result: dict[str, Any]) -> str:
    env, prm = result["env"], result["params"]
    lines = [f"parquet-core read benchmark: {prm['rows']:,} rows, best of {prm['repeats']}, engines "
             f"{', '.join(prm['engines'])}{', --check' if prm['check'] else ''}; {env['cpu_count']} CPUs, "
             f"Python {env['python']}, pyarrow {env['pyarrow']}, fastparquet {env['fastparquet']}, "
             f"numpy {env['numpy']}"]
    lines.append(f"   parquet_core at git {env['git_rev']}"
                 + (f" + {len(env['parquet_core_uncommitted'])} uncommitted file(s)"
                    if env.get("parquet_core_uncommitted") else "")
                 + f", sources sha1 {env['parquet_core_src_sha1']}"
                 + (" (snapshot taken at start)" if env.get("parquet_core_snapshot") else ""))
    load = env.get("loadavg_start")
    if load:
        lines.append(f"   load average {load[0]:.2f} (1 min) at start, {env.get('loadavg_end', ['?'])[0]} at end; "
                     f"run started {env['time']}")
    return "\n".join(lines)


def print_saved(result: dict[str, Any]) -> None:
    """Print the report of a saved run (``--from-json``)."""
    engines = result["params"]["engines"]
    print(_header(result))
    for v in result["variants"]:
        print("\n" + render_variant(v, engines))
    summary = render_summary(result, engines)
    if summary:
        print("\n" + summary)
    if result.get("footer"):
        print("\n" + render_footer(result["footer"]))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.read_bench", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=None, help="rows in the dataset (default 2,000,000; --quick 200,000)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 200k rows unless --rows is given")
    ap.add_argument("--repeats", "-n", type=int, default=3, help="best of N runs per cell (default 3)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="stop repeating a cell once its runs total this many seconds (default 60)")
    ap.add_argument("--check", action="store_true",
                    help="verify every parquet_core result against pyarrow's (WRONG results get no ratio)")
    ap.add_argument("--json", metavar="PATH", help="write every number to this JSON file")
    ap.add_argument("--variants", help="comma-separated variant names (default all; see --list)")
    ap.add_argument("--columns", help="comma-separated column names to time (default: each variant's focus columns)")
    ap.add_argument("--all-columns", action="store_true",
                    help="time every column in every variant (default: encoding variants time only the "
                         "columns they re-encode)")
    ap.add_argument("--whole-table", action="store_true", help="with --columns, still time the whole-table read")
    ap.add_argument("--engines", default="pc,pcMT,pa1,paMT,fp",
                    help="comma-separated subset of pc,pcMT,pa1,paMT,fp")
    ap.add_argument("--no-footer", action="store_true", help="skip the footer-parsing benchmark")
    ap.add_argument("--footer-only", action="store_true", help="run only the footer-parsing benchmark")
    ap.add_argument("--row-group-size", type=int, default=1 << 20, help="rows per row group (default 1048576)")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="where generated files are cached (default $PQC_BENCH_CACHE or benchmarks/_cache)")
    ap.add_argument("--regenerate", action="store_true", help="rewrite cached files")
    ap.add_argument("--no-snapshot", dest="snapshot", action="store_false",
                    help="import parquet_core in place instead of from a copy taken at start")
    ap.add_argument("--list", action="store_true", help="list the variants and columns, then exit")
    ap.add_argument("--from-json", metavar="PATH", help="re-print the report of a saved --json run, then exit")
    args = ap.parse_args(argv)
    if args.rows is None:
        args.rows = 200_000 if args.quick else 2_000_000
    args.cache_dir = args.cache_dir or data.default_cache_dir()
    args.engines_list = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in args.engines_list if e not in ENGINES]
    if bad:
        ap.error(f"unknown engine(s) {bad}; choose from {list(ENGINES)}")
    known = {v.name for v in data.VARIANTS}
    args.variants_list = [v.strip() for v in args.variants.split(",")] if args.variants else [v.name for v in data.VARIANTS]
    bad = [v for v in args.variants_list if v not in known]
    if bad:
        ap.error(f"unknown variant(s) {bad}; choose from {sorted(known)}")
    args.columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
    if args.columns:
        bad = [c for c in args.columns if c not in data.COLUMNS]
        if bad:
            ap.error(f"unknown column(s) {bad}; choose from {list(data.COLUMNS)}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        print_saved(saved)
        return saved
    if args.list:
        for v in data.VARIANTS:
            print(f"{v.name:<24} {SHORT.get(v.name, ''):<7} {v.description}  [per-column: {', '.join(v.focus)}]")
        print()
        for c, d in data.COLUMNS.items():
            print(f"{c:<11} {d}")
        return {}
    snapshot = snapshot_engine() if args.snapshot else None
    engines = load_engines(args.engines_list)
    result: dict[str, Any] = {
        "env": _env(snapshot),
        "params": {"rows": args.rows, "repeats": args.repeats, "budget_s": args.budget, "check": args.check,
                   "seed": args.seed, "row_group_size": args.row_group_size, "engines": args.engines_list,
                   "engine_calls": {e: ENGINES[e] for e in args.engines_list},
                   "size_basis": "sum of ColumnChunk total_uncompressed_size (pyarrow metadata): encoded "
                                 "pages + page headers before compression; MB = 1e6 bytes",
                   "cache_dir": str(args.cache_dir)},
        "engine_import_errors": {e: err for e, (_, err) in engines.items() if err},
        "variants": [], "footer": None,
    }
    print(_header(result).split("\n   load average")[0], flush=True)
    env = result["env"]
    load = env["loadavg_start"]
    if load:
        busy = load[0] > 0.5 * (os.cpu_count() or 1)
        print(f"   load average {load[0]:.2f} (1 min) at start"
              + ("; the machine is busy, expect noisy timings" if busy else ""), flush=True)
    for e, err in result["engine_import_errors"].items():
        print(f"   engine {e} unavailable: {err}", flush=True)
    table_cache: dict[str, pa.Table] = {}
    if not args.footer_only:
        for name in args.variants_list:
            variant = next(v for v in data.VARIANTS if v.name == name)
            _log(f"[{name}]")
            v = bench_variant(variant, args, engines, table_cache)
            result["variants"].append(v)
            print("\n" + render_variant(v, args.engines_list), flush=True)
        table_cache.clear()
        summary = render_summary(result, args.engines_list)
        if summary:
            print("\n" + summary, flush=True)
    if not args.no_footer:
        _log("[footer]")
        result["footer"] = bench_footer(args)
        print("\n" + render_footer(result["footer"]), flush=True)
    result["env"]["loadavg_end"] = _loadavg()
    result["env"]["parquet_core_src_sha1_end"] = end_sha = _src_sha1()
    if end_sha != result["env"]["parquet_core_src_sha1"]:
        if snapshot:
            print(f"\nnote: parquet_core/ changed during the run ({result['env']['parquet_core_src_sha1']} -> "
                  f"{end_sha}); the numbers are for the snapshot taken at start", flush=True)
        else:
            print(f"\nWARNING: parquet_core sources changed during the run "
                  f"({result['env']['parquet_core_src_sha1']} -> {end_sha}); numbers may mix engine versions",
                  flush=True)
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1, default=str))
        print(f"\nwrote {out}", flush=True)
    return result


if __name__ == "__main__":
    main()
