"""The outputs of ``pqc compat``: terminal table, Markdown page, JSON, one HTML page."""

from __future__ import annotations

import html
import json
from typing import Any

from parquet_core.compat.runner import Run

__all__ = ["terminal", "markdown", "to_json", "to_html", "SYMBOLS"]

SYMBOLS = {"ok": "ok", "different": "DIFF", "refused": "refused", "crash": "CRASH", "n/a": "n/a"}
_MD = {"ok": "✅", "different": "❗", "refused": "❌", "crash": "💥", "n/a": "—"}
_COLOURS = {"ok": "#c8f0c8", "different": "#ffd27f", "refused": "#f4b0b0", "crash": "#d070d0", "n/a": "#e4e4e4"}


def _columns(run: Run) -> list[str]:
    return list(run.readers)


def _row_label(row: Any, writers: bool) -> str:
    return f"{row.feature} [{row.writer}]" if writers else row.feature


def terminal(run: Run) -> str:
    """A plain-text table, one row per feature, one column per reader."""
    cols = _columns(run)
    writers = any(r.writer != "pc" for r in run.rows)
    w0 = max([len(_row_label(r, writers)) for r in run.rows] + [7])
    widths = [max(len(c), 7) for c in cols]
    lines = ["feature".ljust(w0) + "  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths))]
    lines.append("-" * len(lines[0]))
    for r in run.rows:
        cells = [SYMBOLS[r.results[c].verdict] if c in r.results else "" for c in cols]
        lines.append(_row_label(r, writers).ljust(w0) + "  " + "  ".join(s.ljust(w) for s, w in zip(cells, widths)))
    counts: dict[str, dict[str, int]] = {c: {} for c in cols}
    for r in run.rows:
        for c in cols:
            if c in r.results:
                v = r.results[c].verdict
                counts[c][v] = counts[c].get(v, 0) + 1
    lines.append("")
    for c in cols:
        lines.append(f"{c} {run.readers[c]}: " + ", ".join(f"{v} {n}" for v, n in sorted(counts[c].items())))
    lines.append(f"{len(run.rows)} files, {run.seconds:.0f} s")
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(run: Run, title: str = "Compatibility matrix", intro: str = "") -> str:
    """The matrix as a Markdown page: features as rows, readers as columns, footnotes for the details."""
    cols = _columns(run)
    writers = any(r.writer != "pc" for r in run.rows)
    out = [f"# {title}", ""]
    if intro:
        out += [intro.strip(), ""]
    out.append("Readers: " + ", ".join(f"{c} {run.readers[c]}" for c in cols) + ".")
    out.append(f"Legend: {_MD['ok']} ok, {_MD['different']} different values, {_MD['refused']} refused, "
               f"{_MD['crash']} crash (died, hung, memory limit), {_MD['n/a']} not applicable.")
    out.append("")
    notes: list[str] = []
    note_ids: dict[str, int] = {}
    groups: dict[str, list] = {}
    for r in run.rows:
        groups.setdefault(r.group, []).append(r)
    for group, rows in groups.items():
        out += [f"## {group}", ""]
        head = "| feature | description | " + " | ".join(cols) + " |"
        out += [head, "|" + "---|" * (len(cols) + 2)]
        for r in rows:
            cells = []
            for c in cols:
                cell = r.results.get(c)
                if cell is None:
                    cells.append("")
                    continue
                mark = _MD[cell.verdict]
                if cell.verdict in ("different", "refused", "crash") and cell.detail:
                    key = f"{cell.verdict}: {cell.detail}"
                    if key not in note_ids:
                        notes.append(key)
                        note_ids[key] = len(notes)
                    mark += f" [{note_ids[key]}]"
                cells.append(mark)
            out.append(f"| `{_row_label(r, writers)}` | {_md_escape(r.description)} | " + " | ".join(cells) + " |")
        out.append("")
    if notes:
        out += ["## Notes", ""]
        out += [f"{i}. {_md_escape(n)}" for i, n in enumerate(notes, 1)]
        out.append("")
    return "\n".join(out)


def to_json(run: Run) -> str:
    return json.dumps(run.as_json(), indent=1, ensure_ascii=False)


_SCRIPT = """
function pick(g){document.querySelectorAll('tr[data-group]').forEach(function(tr){
  tr.style.display=(g==='all'||tr.dataset.group===g)?'':'none';});
  document.querySelectorAll('button[data-g]').forEach(function(b){b.className=b.dataset.g===g?'on':'';});}
"""


def to_html(run: Run) -> str:
    """One self-contained page: the matrix coloured by verdict, details on hover, filters by group."""
    cols = _columns(run)
    writers = any(r.writer != "pc" for r in run.rows)
    groups = list(dict.fromkeys(r.group for r in run.rows))
    e = html.escape
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'><title>pqc compat</title><style>",
             "body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse}"
             " td,th{border:1px solid #aaa;padding:2px 6px} th{background:#eee}"
             " button.on{font-weight:bold} td.v{text-align:center}",
             "".join(f" td.{k.replace('/', '')}{{background:{c}}}" for k, c in _COLOURS.items()),
             "</style><script>", _SCRIPT, "</script></head><body>",
             f"<h1>pqc compat</h1><p>generated {e(run.generated)}; readers: "
             + ", ".join(f"{e(c)} {e(run.readers[c])}" for c in cols) + "</p>",
             "<p id='filters'><button data-g='all' class='on' onclick=\"pick('all')\">all</button>"
             + "".join(f"<button data-g='{e(g)}' onclick=\"pick('{e(g)}')\">{e(g)}</button>" for g in groups)
             + "</p>",
             "<table><thead><tr><th>feature</th><th>description</th>"
             + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr></thead><tbody>"]
    for r in run.rows:
        cells = []
        for c in cols:
            cell = r.results.get(c)
            if cell is None:
                cells.append("<td></td>")
                continue
            tip = f"{cell.verdict}: {cell.detail}" if cell.detail else cell.verdict
            tip += f" ({cell.seconds:.3f} s)"
            cells.append(f"<td class='v {cell.verdict.replace('/', '')}' title='{e(tip, quote=True)}'>"
                         f"{e(cell.verdict)}</td>")
        parts.append(f"<tr data-group='{e(r.group)}'><td><code>{e(_row_label(r, writers))}</code></td>"
                     f"<td>{e(r.description)}</td>{''.join(cells)}</tr>")
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts)


PAGE_INTRO = """\
This page is generated: `python -m parquet_core.cli compat --markdown docs/compat.md`
(parquet_core writes one small file per Parquet format feature, every installed reader reads
each in its own process, and the values are compared with what was written). The feature
list is checked against the code's catalogue by `tests/compat/test_docs_page.py`; the verdicts
depend on the reader versions named below. How to read it, what each verdict means and the
explanation of every `different` cell are in [compat-notes.md](compat-notes.md)."""


WRITERS_INTRO = """\
This page is generated: `python -m parquet_core.cli compat --writers pyarrow,duckdb,polars,fastparquet,spark
--markdown docs/compat-writers.md`. Each writer writes the values of each feature with the option
that produces it; a row `feature [writer]` is `n/a` everywhere when the writer has no such option
or its file does not use the feature (checked from the footer). Every reader, parquet_core
included, reads the rest. The verdicts depend on the versions named below; the `different`
cells are explained in [compat-notes.md](compat-notes.md)."""


def markdown_page(run: Run) -> str:
    """The generated docs page: docs/compat.md, or docs/compat-writers.md for ``--writers``."""
    if any(r.writer != "pc" for r in run.rows):
        written = [r for r in run.rows if not all(c.verdict == "n/a" and c.detail.startswith("not written")
                                                  for c in r.results.values())]
        from dataclasses import replace
        return markdown(replace(run, rows=written), "Writer x reader matrix (measured)",
                        WRITERS_INTRO + "\n\nWriters: " +
                        ", ".join(f"{w} {v}" for w, v in run.writers.items()) + ". Rows a writer could not "
                        "produce are left out (they are in the JSON).")
    return markdown(run, "Compatibility matrix (measured)", PAGE_INTRO)
