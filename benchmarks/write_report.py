"""Text report of the write benchmark (``python -m benchmarks.write_bench``)."""

from __future__ import annotations

from typing import Any

from benchmarks._harness import fmt_ms, fmt_ratio, render_table
from benchmarks._harness import gmean as _gmean

__all__ = ["render_header", "render_report"]

MB = 1e6
_OK = "ok"


def render_header(result: dict[str, Any]) -> str:
    env, prm, ds = result["env"], result["params"], result["dataset"]
    levels = ", ".join(f"{k} {x}" for k, x in prm["levels"].items())
    lines = [
        f"parquet-core write benchmark: {prm['rows']:,} rows ({ds['mem_bytes_total'] / MB:.1f} MB in memory), "
        f"best of {prm['repeats']}, engines {', '.join(prm['engines'])}; {env['cpu_count']} CPUs, "
        f"Python {env['python']}, pyarrow {env['pyarrow']}, fastparquet {env['fastparquet']}, "
        f"numpy {env['numpy']}",
        f"   parquet_core at git {env['git_rev']}"
        + (f" + {len(env['parquet_core_uncommitted'])} uncommitted file(s)"
           if env.get("parquet_core_uncommitted") else "")
        + f", sources sha1 {env['parquet_core_src_sha1']}"
        + (" (snapshot taken at start)" if env.get("parquet_core_snapshot") else ""),
        f"   all engines: statistics on, page index {'on' if prm['page_index'] else 'off'} (pc, pa), "
        f"row groups {prm['row_group_size']:,} rows, pages 1 MiB, levels {levels}",
        f"   parquet_core input: {prm.get('pc_input')}",
    ]
    load = env.get("loadavg_start")
    if load:
        end = env.get("loadavg_end")
        lines.append(f"   load average {load[0]:.2f} (1 min) at start"
                     + (f", {end[0]:.2f} at end" if end else "") + f"; started {env['time']}"
                     + (f", took {env['elapsed_s']:.0f} s" if env.get("elapsed_s") else ""))
    return "\n".join(lines)


def _cell(row: dict[str, Any], e: str) -> str:
    c = row["engines"].get(e)
    if c is None:
        return "-"
    return fmt_ms(c["best_s"]) if c["status"] == _OK else c["status"]


def _mb(row: dict[str, Any], e: str) -> str:
    c = row["engines"].get(e)
    if c is None or c["status"] != _OK or "file_bytes" not in c:
        return "-"
    return f"{c['file_bytes'] / MB:.1f}"


def _mbps(row: dict[str, Any], e: str) -> str:
    x = row["mb_per_s"].get(e)
    return "-" if x is None else f"{x:.0f}"


def _check(row: dict[str, Any]) -> str:
    bad = [f"{e}:{c['status']}" for e, c in row["engines"].items() if c["status"] not in (_OK, "n/a")]
    return " ".join(bad) if bad else _OK


def _size_ratio(row: dict[str, Any], e: str) -> str:
    x = row["size_ratios"].get(f"pc/{e}")
    return "-" if x is None else f"{x:.3f}"


def render_variants(result: dict[str, Any]) -> str:
    engines = result["params"]["engines"]
    rows = []
    for r in result["variants"]:
        rows.append([r["name"]] + [_cell(r, e) for e in engines]
                    + [_mbps(r, e) for e in ("pc", "pa1", "fp") if e in engines]
                    + [fmt_ratio(r["ratios"].get(k)) for k in _ratio_keys(engines)]
                    + [_mb(r, e) for e in ("pc", "pa1", "fp") if e in engines]
                    + [_size_ratio(r, "pa1"), _size_ratio(r, "fp"), _check(r)])
    g = ["gmean"] + [""] * len(engines) + [""] * len([e for e in ("pc", "pa1", "fp") if e in engines])
    for k in _ratio_keys(engines):
        g.append(fmt_ratio(_gmean([r["ratios"][k] for r in result["variants"] if k in r["ratios"]])))
    g += [""] * len([e for e in ("pc", "pa1", "fp") if e in engines])
    for e in ("pa1", "fp"):
        x = _gmean([r["size_ratios"][f"pc/{e}"] for r in result["variants"] if f"pc/{e}" in r["size_ratios"]])
        g.append("-" if x is None else f"{x:.3f}")
    g.append("")
    rows.append(g)
    headers = (["variant"] + [f"{e} ms" for e in engines]
               + [f"{e} MB/s" for e in ("pc", "pa1", "fp") if e in engines]
               + _ratio_keys(engines)
               + [f"{e} MB" for e in ("pc", "pa1", "fp") if e in engines]
               + ["size pc/pa", "size pc/fp", "check"])
    ds = result["dataset"]
    head = (f"== Whole-table writes: {ds['rows']:,} rows, {ds['mem_bytes_total'] / MB:.1f} MB in memory; "
            f"ms = best of runs; MB/s = in-memory MB / s; pc/x = time ratio (>1: parquet_core slower); "
            f"size = file size ratio")
    return head + "\n" + render_table(headers, rows, right=set(range(1, len(headers) - 1)))


def _ratio_keys(engines: list[str]) -> list[str]:
    return [f"{p}/{e}" for p in ("pc", "pcF") if p in engines for e in ("pa1", "paMT", "fp")
            if e in engines and not (p == "pcF" and e == "paMT")]


def _enc(row: dict[str, Any], e: str, col: str) -> str:
    c = row["engines"].get(e) or {}
    return (c.get("check") or {}).get("encodings", {}).get(col, "-")


def render_per_column(result: dict[str, Any]) -> str:
    pcol = result["per_column"]
    engines = result["params"]["engines"]
    rows_in = pcol["rows"]
    pc_total = sum(r["engines"]["pc"]["best_s"] for r in rows_in
                   if r["engines"].get("pc", {}).get("status") == _OK)
    rows = []
    for r in rows_in:
        col = r["label"]
        pcc = r["engines"].get("pc", {})
        share = f"{100 * pcc['best_s'] / pc_total:.0f}%" if pcc.get("status") == _OK and pc_total else "-"
        rows.append([col, f"{r['mem_bytes'] / MB:.1f}", _enc(r, "pc", col), _enc(r, "pa1", col)]
                    + [_cell(r, e) for e in engines]
                    + [_mbps(r, "pc"), _mbps(r, "pa1")]
                    + [fmt_ratio(r["ratios"].get(k)) for k in _ratio_keys(engines) if "paMT" not in k]
                    + [_mb(r, "pc"), _mb(r, "pa1"), _size_ratio(r, "pa1"), share, _check(r)])
    headers = (["column", "mem MB", "pc enc", "pa enc"] + [f"{e} ms" for e in engines]
               + ["pc MB/s", "pa1 MB/s"] + [k for k in _ratio_keys(engines) if "paMT" not in k]
               + ["pc MB", "pa MB", "size pc/pa", "pc share", "check"])
    whole = next((v for v in result["variants"] if v["name"] == pcol["variant"]), None)
    tail = ""
    if whole and whole["engines"].get("pc", {}).get("status") == _OK:
        tail = (f"\n   sum of the one-column writes: pc {fmt_ms(pc_total)} ms; whole-table write "
                f"{fmt_ms(whole['engines']['pc']['best_s'])} ms")
    return (f"== Per column: {pcol['variant']} — {pcol['description']} (each column written alone)\n"
            + render_table(headers, rows, right=set(range(1, len(headers) - 1))) + tail)


def render_encoding_diffs(result: dict[str, Any]) -> str:
    """Columns where parquet_core's data-page encodings differ from pyarrow's."""
    lines = []
    for r in result["variants"]:
        pcc, pac = r["engines"].get("pc", {}), r["engines"].get("pa1", {})
        a = (pcc.get("check") or {}).get("encodings") or {}
        b = (pac.get("check") or {}).get("encodings") or {}
        diffs = [f"{c} pc {a[c]} / pa {b[c]}" for c in a if c in b and a[c] != b[c]]
        if diffs:
            lines.append(f"   {r['name']}: " + "; ".join(diffs))
    if not lines:
        return ""
    return ("== Data-page encodings where parquet_core and pyarrow differ (DICT+PLAIN = dictionary "
            "fell back to PLAIN)\n" + "\n".join(lines))


def render_aims(result: dict[str, Any]) -> str:
    vs = result["variants"]
    out = ["== Aims of issue 3 (whole-table writes)"]
    for key, title, limit in (("pc/fp", "at least as fast as fastparquet (pc/fp <= 1)", 1.0),
                              ("pcF/fp", "  same, writing to a file object (pcF/fp <= 1)", 1.0),
                              ("pc/pa1", "within 2x of pyarrow, 1 thread (pc/pa1 <= 2)", 2.0),
                              ("pcF/pa1", "  same, writing to a file object (pcF/pa1 <= 2)", 2.0)):
        have = [(r["ratios"][key], r["name"]) for r in vs if key in r["ratios"]]
        miss = sorted(((x, n) for x, n in have if x > limit), reverse=True)
        out.append(f"   {title}: {len(have) - len(miss)}/{len(have)} variants"
                   + (("; misses: " + ", ".join(f"{n} {x:.2f}x" for x, n in miss)) if miss else ""))
    have = [(r["size_ratios"]["pc/pa1"], r["name"]) for r in vs if "pc/pa1" in r["size_ratios"]]
    miss = sorted(((x, n) for x, n in have if x > 1.0), reverse=True)
    out.append(f"   files no bigger than pyarrow's (size pc/pa <= 1): {len(have) - len(miss)}/{len(have)} variants"
               + (("; misses: " + ", ".join(f"{n} {x:.4f}" for x, n in miss)) if miss else ""))
    pcs = [r for r in vs if r["engines"].get("pc", {}).get("status") not in (_OK, None)]
    if pcs:
        out.append(f"   parquet_core cells not ok: {len(pcs)} (see failures)")
    return "\n".join(out)


def render_notes(result: dict[str, Any]) -> str:
    groups: dict[tuple[str, str, str], list[str]] = {}
    rows = [(r["name"], r) for r in result["variants"]]
    if result.get("per_column"):
        rows += [(f"{result['per_column']['variant']}/{r['label']}", r) for r in result["per_column"]["rows"]]
    if result.get("inputs"):
        rows.append((f"inputs/{result['inputs']['variant']}",
                     {"engines": {f"pc({x['input']})": x for x in result["inputs"]["rows"]}}))
    for where, r in rows:
        for e, c in r["engines"].items():
            if c.get("note"):
                groups.setdefault(("note", e, c["note"]), []).append(where)
            if c["status"] != _OK:
                groups.setdefault((c["status"], e, str(c.get("error"))), []).append(where)
            for note in (c.get("check") or {}).get("notes", []):
                groups.setdefault(("note", e, note), []).append(where)
    lines = []
    for (status, e, err), where in groups.items():
        shown = ", ".join(where[:6]) + (f", ... ({len(where)} cells)" if len(where) > 6 else "")
        lines.append(f"   {status} {e} [{shown}]: {err}")
    return ("== Not run, failures and notes\n" + "\n".join(lines)) if lines else ""


def render_profile(p: dict[str, Any]) -> str:
    if p.get("error"):
        return f"== cProfile of {p['variant']}: {p['error']}"
    head = (f"== cProfile: one parquet_core write of {p['variant']} ({p['wall_s']:.2f} s under the "
            f"profiler), top functions by own time")
    rows = [[f"{x['tottime_s'] * 1e3:.1f}", f"{x['cumtime_s'] * 1e3:.1f}", str(x["ncalls"]), x["function"]]
            for x in p["top_tottime"]]
    out = head + "\n" + render_table(["own ms", "cum ms", "calls", "function"], rows, right={0, 1, 2})
    rows = [[f"{x['cumtime_s'] * 1e3:.1f}", f"{x['tottime_s'] * 1e3:.1f}", str(x["ncalls"]), x["function"]]
            for x in p["top_cumtime_parquet_core"][:15]]
    if rows:
        out += "\n\n   parquet_core functions by cumulative time\n" + render_table(
            ["cum ms", "own ms", "calls", "function"], rows, right={0, 1, 2})
    return out


def render_inputs(res: dict[str, Any]) -> str:
    head = f"== parquet_core input kinds: {res['variant']} (conversion included; vs Table = time / Table's time)"
    if res.get("error"):
        return f"{head}\n   n/a: {res['error']}"
    rows = []
    for r in res["rows"]:
        ok = r["status"] == _OK
        rows.append([r["input"], fmt_ms(r["best_s"]) if ok else r["status"],
                     f"{r['mb_per_s']:.0f}" if ok else "-", fmt_ratio(r.get("vs_table")),
                     f"{r['file_bytes'] / MB:.1f}" if ok else "-", r["description"]])
    return head + "\n" + render_table(["input", "pc ms", "MB/s", "vs Table", "file MB", "input"], rows,
                                      right={1, 2, 3, 4})


def render_report(result: dict[str, Any]) -> str:
    parts = [render_variants(result)]
    if result.get("per_column"):
        parts.append(render_per_column(result))
    if result.get("inputs"):
        parts.append(render_inputs(result["inputs"]))
    for extra in (render_encoding_diffs(result), render_aims(result), render_notes(result)):
        if extra:
            parts.append(extra)
    if result.get("profile"):
        parts.append(render_profile(result["profile"]))
    return "\n\n".join(parts)
