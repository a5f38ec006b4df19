"""Write benchmark: parquet_core vs pyarrow vs fastparquet writing the same table.

Run from the repository root::

    python -m benchmarks.write_bench --quick                 # 200k rows, smoke run
    python -m benchmarks.write_bench --json benchmarks/results/write_full.json   # 2M rows

See the "Write benchmark" section of ``benchmarks/README.md`` for what is
measured and how to read it.

Engines (each call writes the whole file, footer included, to a fresh path):

* ``pc``    ``parquet_core.write_table(Table, path, **options)``
* ``pa1``   ``pyarrow.parquet.write_table(pa.Table, path, **options)`` with
  ``pa.set_cpu_count(1)`` and ``pa.set_io_thread_count(1)``
* ``paMT``  the same with pyarrow's default thread pools
* ``fp``    ``fastparquet.write(path, DataFrame, **closest options)``

Each engine writes its native in-memory form (parquet_core ``Table``, Arrow
table, pandas DataFrame), all built before timing.  Every cell is the best of
``--repeats`` runs, interleaved across engines; each engine's first file of
every cell is read back with pyarrow and compared with the source, and its
pages are checked against the requested layout (``write_check``).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):  # ``python benchmarks/write_bench.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks import read_bench_data as data
from benchmarks import write_variants as wv
from benchmarks._harness import environment as _env
from benchmarks._harness import err as _err
from benchmarks._harness import loadavg as _loadavg
from benchmarks._harness import log as _log
from benchmarks._harness import run_once, snapshot_engine
from benchmarks._harness import src_sha1 as _src_sha1
from benchmarks.read_bench_check import check_table
from benchmarks.write_check import check_layout, check_values, enc_label, page_layout
from benchmarks.write_report import render_header, render_report

ENGINES: dict[str, str] = {
    "pc": "parquet_core.write_table(Table, path): temp file + fsync + rename",
    "pcF": "parquet_core.write_table(Table, open(path, 'wb')): no temp file, no fsync",
    "pa1": "pyarrow.parquet.write_table(pa.Table), cpu and io thread pools = 1",
    "paMT": "pyarrow.parquet.write_table(pa.Table), default thread pools",
    "fp": "fastparquet.write(DataFrame)",
}

_DEFAULT_THREADS = (pa.cpu_count(), pa.io_thread_count())


def _threads(single: bool) -> None:
    cpu, io_ = (1, 1) if single else _DEFAULT_THREADS
    if pa.cpu_count() != cpu:
        pa.set_cpu_count(cpu)
    if pa.io_thread_count() != io_:
        pa.set_io_thread_count(io_)


# -- inputs ------------------------------------------------------------------------

class Inputs:
    """The source table in each engine's native form (built once, outside timing)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.source: pa.Table = data.make_table(args.rows, args.seed).combine_chunks()
        self.nbytes = wv.arrow_nbytes(self.source)
        self.pc_mod: Any = None
        self.pc_table: Any = None
        self.pc_error: str | None = None
        self.pc_source: str = ""
        self._fp_frames: dict[bool, Any] = {}
        self.fp_mod: Any = None
        self.fp_error: str | None = None

    def load(self, engines: list[str]) -> None:
        if "pc" in engines:
            self._load_pc()
        if "fp" in engines:
            try:
                import fastparquet

                self.fp_mod = fastparquet
            except Exception as exc:  # noqa: BLE001
                self.fp_error = f"import failed: {_err(exc)}"

    def _load_pc(self) -> None:
        """parquet_core's Table of the source: read once from pyarrow's PLAIN file of it."""
        try:
            import parquet_core as pcm

            self.pc_mod = pcm
            if not hasattr(pcm, "write_table"):
                raise AttributeError("parquet_core has no write_table yet")
            plain = next(v for v in data.VARIANTS if v.name == "plain_none")
            cache: dict[str, pa.Table] = {"table": self.source}
            path, _ = data.ensure_variant(self.args.cache_dir, plain, self.args.rows, self.args.seed,
                                          self.args.row_group_size, cache)
            t0 = time.perf_counter()
            table = pcm.read_table(str(path))
            ok, detail = check_table(table, self.source, self.source.column_names, seed=self.args.seed)
            if not ok:
                raise ValueError(f"parquet_core read the source back wrong: {detail}")
            self.pc_table = table
            self.pc_source = f"pc.read_table({path.name}) in {time.perf_counter() - t0:.2f}s, checked"
        except Exception as exc:  # noqa: BLE001
            self.pc_error = _err(exc)

    def fp_frame(self, dictionary: bool) -> Any:
        if dictionary not in self._fp_frames:
            self._fp_frames[dictionary] = wv.fp_frame(self.source, dictionary)
        return self._fp_frames[dictionary]

    def pc_subset(self, columns: list[str] | None) -> Any:
        t = self.pc_table
        if columns is None:
            return t
        m = self.pc_mod
        return m.Table(m.Schema([t.schema.field(c) for c in columns]), [t.column(c) for c in columns])


# -- one cell (a variant, whole table or one column) --------------------------------

def make_calls(inp: Inputs, v: wv.WriteVariant, engines: list[str], columns: list[str] | None
               ) -> dict[str, tuple[Callable[[str], Any] | None, str]]:
    """engine -> (writer(path) or None, note or reason it cannot run)."""
    args = inp.args
    out: dict[str, tuple[Any, str]] = {}
    src = inp.source if columns is None else inp.source.select(columns)
    for e in engines:
        if e in ("pc", "pcF"):
            if inp.pc_table is None:
                out[e] = (None, f"n/a: {inp.pc_error}")
                continue
            table = inp.pc_subset(columns)
            kw = wv.pc_options(v, args.row_group_size, args.page_index, columns)
            if e == "pc":
                out[e] = (lambda p, t=table, kw=kw: inp.pc_mod.write_table(t, p, **kw), "")
            else:
                out[e] = (lambda p, t=table, kw=kw: _pc_to_fileobj(inp.pc_mod, t, p, kw), "")
        elif e in ("pa1", "paMT"):
            kw = wv.pa_options(v, args.row_group_size, args.page_index, columns)
            out[e] = (lambda p, kw=kw: pq.write_table(src, p, **kw), "")
        elif e == "fp":
            if inp.fp_mod is None:
                out[e] = (None, f"n/a: {inp.fp_error}")
                continue
            kw, note = wv.fp_options(v, args.row_group_size)
            if kw is None:
                out[e] = (None, f"n/a: {note}")
                continue
            df = inp.fp_frame(v.use_dictionary)
            if columns is not None:
                df = df[columns].copy()
            out[e] = (lambda p, df=df, kw=kw: inp.fp_mod.write(p, df, **kw), note)
    return out


def _pc_to_fileobj(pcm: Any, table: Any, path: str, kw: dict[str, Any]) -> None:
    with open(path, "wb", buffering=1 << 20) as f:
        pcm.write_table(table, f, **kw)


def _verify(path: str, src: pa.Table, v: wv.WriteVariant) -> dict[str, Any]:
    try:
        ok, detail, notes = check_values(path, src)
        if not ok:
            return {"status": "WRONG", "detail": detail, "notes": notes}
    except Exception as exc:  # noqa: BLE001
        return {"status": "WRONG", "detail": f"read-back check raised {_err(exc)}", "notes": []}
    try:
        layout = page_layout(path)
        lok, ldetail = check_layout(layout, v)
        encs = {c: enc_label(d) for c, d in layout.items()}
        md = pq.read_metadata(path)
        required = [md.schema.column(i).name for i in range(md.num_columns)
                    if md.schema.column(i).max_definition_level == 0]
        if required:
            notes = notes + [f"REQUIRED (no definition levels): {', '.join(required)}"]
        res = {"status": "ok" if lok else "LAYOUT", "detail": detail if lok else ldetail, "notes": notes,
               "encodings": encs, "num_row_groups": md.num_row_groups,
               "pages": {c: sum(d["page_types"].values()) for c, d in layout.items()}}
        return res
    except Exception as exc:  # noqa: BLE001
        return {"status": "LAYOUT", "detail": f"page walk raised {_err(exc)}", "notes": notes}


def time_cell(inp: Inputs, v: wv.WriteVariant, columns: list[str] | None, label: str) -> dict[str, Any]:
    """Best-of-N write times of every engine for one variant (whole table or *columns*)."""
    src = inp.source if columns is None else inp.source.select(columns)
    calls = make_calls(inp, v, inp.args.engines_list, columns)
    cells = _run_calls(inp.args, calls, f"{v.name}-{label}", src, v)
    row = {"label": label, "columns": columns or src.column_names,
           "mem_bytes": sum(inp.nbytes[c] for c in src.column_names), "engines": cells}
    derive(row)
    return row


def _run_calls(args: argparse.Namespace, calls: dict[str, tuple[Callable[[str], Any] | None, str]],
               stem: str, src: pa.Table, v: wv.WriteVariant) -> dict[str, dict[str, Any]]:
    """Time *calls* round robin (round r runs every engine once), check each first file."""
    cells: dict[str, dict[str, Any]] = {}
    paths: dict[str, str] = {}
    for e, (fn, note) in calls.items():
        if fn is None:
            cells[e] = {"status": "n/a", "error": note}
        else:
            cells[e] = {"status": "ok", "times_s": [], "note": note}
            paths[e] = str(args.out_dir / f"{stem}-{e.replace('/', '_')}.parquet")
    for _ in range(max(args.repeats, 1)):
        for e, (fn, _note) in calls.items():
            cell = cells[e]
            if fn is None or cell["status"] != "ok" or sum(cell["times_s"]) > args.budget:
                continue
            p = paths[e]
            if os.path.exists(p):
                os.unlink(p)
            _threads(single=e != "paMT")
            try:
                dt, _ = run_once(lambda fn=fn, p=p: fn(p))
            except Exception as exc:  # noqa: BLE001 - a failing writer is a result
                cell.update(status="FAILED", error=_err(exc))
                continue
            finally:
                _threads(single=True)
            cell["times_s"].append(dt)
            if len(cell["times_s"]) == 1:
                cell["file_bytes"] = os.path.getsize(p)
                cell["check"] = chk = _verify(p, src, v)
                if chk["status"] != "ok":
                    cell.update(status=chk["status"], error=chk["detail"])
    for e, cell in cells.items():
        if cell.get("times_s"):
            cell["best_s"] = min(cell["times_s"])
            cell["runs"] = len(cell["times_s"])
        if e in paths and not args.keep_files and os.path.exists(paths[e]):
            os.unlink(paths[e])
    return cells


#: input kinds of the input-path section: label -> description
INPUT_KINDS: dict[str, str] = {
    "Table": "parquet_core Table (the main benchmark's input)",
    "pyarrow": "pyarrow Table (converted by parquet_core.interop)",
    "pandas": "pandas DataFrame (object strings, Int64 with NA, datetime64[us])",
    "numpy-U": "dict of numpy arrays: numpy.ma for int64_null, datetime64[us], 'U' strings",
    "numpy-O": "the same with object arrays of str for the strings",
}


def _numpy_columns(source: pa.Table, text: str) -> dict[str, Any]:
    import numpy as np

    out: dict[str, Any] = {}
    for name in source.column_names:
        arr = source.column(name).combine_chunks()
        if pa.types.is_string(arr.type):
            obj = arr.to_numpy(zero_copy_only=False)
            out[name] = obj.astype("U") if text == "U" else obj
        elif arr.null_count:
            valid = arr.is_valid().to_numpy(zero_copy_only=False)
            out[name] = np.ma.MaskedArray(arr.fill_null(0).to_numpy(), mask=~valid)
        else:
            out[name] = arr.to_numpy(zero_copy_only=False)
    return out


def time_inputs(inp: Inputs, v: wv.WriteVariant) -> dict[str, Any]:
    """parquet_core writing *v* from each kind of input (conversion included in the time)."""
    args = inp.args
    if inp.pc_table is None:
        return {"variant": v.name, "error": inp.pc_error, "rows": []}
    kw = wv.pc_options(v, args.row_group_size, args.page_index)
    pcm = inp.pc_mod
    datas: dict[str, Any] = {}
    for kind in INPUT_KINDS:
        try:
            if kind == "Table":
                datas[kind] = inp.pc_table
            elif kind == "pyarrow":
                datas[kind] = inp.source
            elif kind == "pandas":
                datas[kind] = wv.fp_frame(inp.source, dictionary=False)
            else:
                datas[kind] = _numpy_columns(inp.source, kind[-1])
        except Exception as exc:  # noqa: BLE001
            datas[kind] = exc
    calls: dict[str, tuple[Any, str]] = {}
    for kind, d in datas.items():
        if isinstance(d, Exception):
            calls[kind] = (None, f"n/a: could not build the input: {_err(d)}")
        else:
            calls[kind] = (lambda p, d=d: pcm.write_table(d, p, **kw), "")
    cells = _run_calls(args, calls, f"inputs-{v.name}", inp.source, v)
    datas.clear()
    mem = sum(inp.nbytes.values())
    base = cells["Table"].get("best_s") if cells["Table"]["status"] == "ok" else None
    rows = []
    for kind, cell in cells.items():
        r = {"input": kind, "description": INPUT_KINDS[kind], **cell}
        if cell["status"] == "ok":
            r["mb_per_s"] = mem / 1e6 / cell["best_s"]
            if base:
                r["vs_table"] = cell["best_s"] / base
        rows.append(r)
    return {"variant": v.name, "description": v.description, "rows": rows}


def derive(row: dict[str, Any]) -> None:
    """MB/s on the in-memory size, time and size ratios (only between checked-ok cells)."""
    ok = {e: c for e, c in row["engines"].items() if c["status"] == "ok" and c.get("best_s")}
    row["mb_per_s"] = {e: row["mem_bytes"] / 1e6 / c["best_s"] for e, c in ok.items()}
    row["ratios"] = {}
    row["size_ratios"] = {}
    for p in ("pc", "pcF"):
        if p in ok:
            for e in ("pa1", "paMT", "fp"):
                if e in ok:
                    row["ratios"][f"{p}/{e}"] = ok[p]["best_s"] / ok[e]["best_s"]
    if "pc" in ok:
        for e in ("pa1", "fp"):
            if e in ok and ok[e].get("file_bytes"):
                row["size_ratios"][f"pc/{e}"] = ok["pc"]["file_bytes"] / ok[e]["file_bytes"]


# -- profile -------------------------------------------------------------------------

def profile_pc(inp: Inputs, v: wv.WriteVariant, top: int) -> dict[str, Any]:
    """cProfile of one parquet_core write of *v* (whole table); top functions by own time."""
    args = inp.args
    fn = make_calls(inp, v, ["pc"], None)["pc"][0]
    if fn is None:
        return {"variant": v.name, "error": "parquet_core unavailable"}
    path = str(args.out_dir / f"profile-{v.name}.parquet")
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.runcall(fn, path)
    wall = time.perf_counter() - t0
    if os.path.exists(path):
        os.unlink(path)
    stats = pstats.Stats(prof)
    entries = []
    for (file, line, func), (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        entries.append({"function": f"{_short_path(file)}:{line}({func})", "ncalls": nc,
                        "tottime_s": tt, "cumtime_s": ct})
    by_tot = sorted(entries, key=lambda x: -x["tottime_s"])[:top]
    by_cum = sorted((x for x in entries if "parquet_core" in x["function"]),
                    key=lambda x: -x["cumtime_s"])[:top]
    return {"variant": v.name, "wall_s": wall, "top_tottime": by_tot, "top_cumtime_parquet_core": by_cum}


def _short_path(file: str) -> str:
    for key in ("parquet_core/", "site-packages/"):
        if key in file:
            return file[file.index(key) + (0 if key == "parquet_core/" else len(key)):]
    return file


# -- main ---------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.write_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=None, help="rows (default 2,000,000; --quick 200,000)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 200k rows unless --rows is given")
    ap.add_argument("--repeats", "-n", type=int, default=3, help="best of N runs per cell (default 3)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="stop repeating a cell once its runs total this many seconds (default 60)")
    ap.add_argument("--json", metavar="PATH", help="write every number to this JSON file")
    ap.add_argument("--variants", help="comma-separated variant names (default: the standard set; --list)")
    ap.add_argument("--all", action="store_true", help="also run the extra codecs (brotli, Hadoop lz4, ...)")
    ap.add_argument("--engines", default="pc,pcF,pa1,paMT,fp",
                    help="comma-separated subset of pc,pcF,pa1,paMT,fp (default all)")
    ap.add_argument("--per-column", default=wv.MAIN_VARIANT, metavar="VARIANT",
                    help=f"time each column alone in this variant (default {wv.MAIN_VARIANT}; 'none' skips)")
    ap.add_argument("--inputs", default=wv.MAIN_VARIANT, metavar="VARIANT",
                    help="time parquet_core writing VARIANT from each input kind (Table, pyarrow, pandas, "
                         f"numpy; default {wv.MAIN_VARIANT}; 'none' skips)")
    ap.add_argument("--profile", default="none", metavar="VARIANT",
                    help="cProfile one parquet_core write of VARIANT, or 'worst' (highest pc/pa1) "
                         "(default none)")
    ap.add_argument("--profile-top", type=int, default=25, help="functions listed by --profile (default 25)")
    ap.add_argument("--page-index", choices=["on", "off"], default="on",
                    help="write_page_index for parquet_core and pyarrow (default on; fastparquet has none)")
    ap.add_argument("--row-group-size", type=int, default=1 << 20, help="rows per row group (default 1048576)")
    ap.add_argument("--seed", type=int, default=20240601, help="dataset seed (the read benchmark's default)")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="cache of the read benchmark's files (default $PQC_BENCH_CACHE or benchmarks/_cache)")
    ap.add_argument("--out-dir", type=Path, default=None, help="where files are written (default: a temp dir)")
    ap.add_argument("--keep-files", action="store_true", help="keep the written files")
    ap.add_argument("--no-snapshot", dest="snapshot", action="store_false",
                    help="import parquet_core in place instead of from a copy taken at start")
    ap.add_argument("--list", action="store_true", help="list the variants, then exit")
    ap.add_argument("--nested", action="store_true",
                    help="run the nested case instead (benchmarks/nested_write_bench.py: list<int64>, "
                         "list<string>, struct, map<string, int64>; --rows, -n and --seed apply)")
    ap.add_argument("--from-json", metavar="PATH", help="re-print the report of a saved --json run, then exit")
    args = ap.parse_args(argv)
    if args.rows is None:
        args.rows = 200_000 if args.quick else 2_000_000
    args.cache_dir = args.cache_dir or data.default_cache_dir()
    args.page_index = args.page_index == "on"
    args.engines_list = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in args.engines_list if e not in ENGINES]
    if bad:
        ap.error(f"unknown engine(s) {bad}; choose from {list(ENGINES)}")
    known = {v.name: v for v in wv.ALL_VARIANTS}
    if args.variants:
        names = [x.strip() for x in args.variants.split(",") if x.strip()]
    else:
        names = [v.name for v in (wv.ALL_VARIANTS if args.all else wv.VARIANTS)]
    bad = [n for n in names if n not in known]
    if bad:
        ap.error(f"unknown variant(s) {bad}; choose from {sorted(known)}")
    args.variant_objs = [known[n] for n in names]
    if args.per_column != "none" and args.per_column not in known:
        ap.error(f"--per-column: unknown variant {args.per_column!r}")
    if args.inputs != "none" and args.inputs not in known:
        ap.error(f"--inputs: unknown variant {args.inputs!r}")
    if args.profile not in ("none", "worst") and args.profile not in known:
        ap.error(f"--profile: unknown variant {args.profile!r}")
    args.known = known
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.nested:
        from benchmarks import nested_write_bench

        rows = str(args.rows if args.rows != 2_000_000 else 1_000_000)
        nested_write_bench.main(["--rows", rows, "-n", str(args.repeats), "--seed", str(args.seed % 2**32)])
        return {}
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        print(render_header(saved) + "\n\n" + render_report(saved))
        return saved
    if args.list:
        for v in wv.ALL_VARIANTS:
            extra = "" if v in wv.VARIANTS else "  [extra: --all]"
            print(f"{v.name:<24} {v.short:<7} {v.description}{extra}")
        return {}
    snapshot = snapshot_engine() if args.snapshot else None
    tmp_out = args.out_dir is None
    args.out_dir = Path(tempfile.mkdtemp(prefix="pqc_write_bench_")) if tmp_out else args.out_dir
    args.out_dir.mkdir(parents=True, exist_ok=True)
    _threads(single=True)
    try:
        return _run(args, snapshot)
    finally:
        _threads(single=False)
        if tmp_out and not args.keep_files:
            shutil.rmtree(args.out_dir, ignore_errors=True)


def _run(args: argparse.Namespace, snapshot: str | None) -> dict[str, Any]:
    t_start = time.perf_counter()
    env = _env(snapshot)
    env["pyarrow_default_threads"] = {"cpu": _DEFAULT_THREADS[0], "io": _DEFAULT_THREADS[1]}
    inp = Inputs(args)
    inp.load(args.engines_list)
    result: dict[str, Any] = {
        "kind": "write", "env": env,
        "params": {"rows": args.rows, "repeats": args.repeats, "budget_s": args.budget, "seed": args.seed,
                   "row_group_size": args.row_group_size, "page_index": args.page_index,
                   "engines": args.engines_list, "engine_calls": {e: ENGINES[e] for e in args.engines_list},
                   "levels": {k: x for k, x in wv.LEVELS.items() if x is not None},
                   "size_basis": "in-memory size of the source: its Arrow buffers (values, offsets, "
                                 "validity bitmaps), pa.Table.nbytes per column; MB = 1e6 bytes",
                   "pc_input": inp.pc_source or inp.pc_error, "per_column_variant": args.per_column},
        "dataset": {"rows": args.rows, "columns": dict(data.COLUMNS), "mem_bytes": inp.nbytes,
                    "mem_bytes_total": sum(inp.nbytes.values())},
        "variants": [], "per_column": None, "inputs": None, "profile": None,
    }
    print(render_header(result), flush=True)
    for v in args.variant_objs:
        _log(f"[{v.name}]")
        row = time_cell(inp, v, None, "table")
        row.update(name=v.name, short=v.short, description=v.description,
                   options={"pc": wv.pc_options(v, args.row_group_size, args.page_index),
                            "pa": wv.pa_options(v, args.row_group_size, args.page_index),
                            "fp": wv.fp_options(v, args.row_group_size)[0]})
        result["variants"].append(row)
    if args.per_column != "none":
        v = args.known[args.per_column]
        rows = []
        for c in inp.source.column_names:
            _log(f"[per column: {v.name} / {c}]")
            rows.append(time_cell(inp, v, [c], c))
        result["per_column"] = {"variant": v.name, "description": v.description, "rows": rows}
    if args.inputs != "none" and any(e in args.engines_list for e in ("pc", "pcF")):
        _log(f"[inputs: {args.inputs}]")
        result["inputs"] = time_inputs(inp, args.known[args.inputs])
    if args.profile != "none" and inp.pc_table is not None:
        name = args.profile
        if name == "worst":
            ranked = [(r["ratios"].get("pc/pa1"), r["name"]) for r in result["variants"] if "pc/pa1" in r["ratios"]]
            name = max(ranked)[1] if ranked else None
        if name:
            _log(f"[profile: {name}]")
            result["profile"] = profile_pc(inp, args.known[name], args.profile_top)
    env["loadavg_end"] = _loadavg()
    env["elapsed_s"] = round(time.perf_counter() - t_start, 1)
    env["parquet_core_src_sha1_end"] = end_sha = _src_sha1()
    print("\n" + render_report(result), flush=True)
    if end_sha != env["parquet_core_src_sha1"]:
        print(f"\nnote: parquet_core/ changed during the run ({env['parquet_core_src_sha1']} -> {end_sha})"
              + ("; the numbers are for the snapshot taken at start" if snapshot else
                 "; numbers may mix engine versions"), flush=True)
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1, default=str))
        print(f"\nwrote {out}", flush=True)
    return result


if __name__ == "__main__":
    main()
