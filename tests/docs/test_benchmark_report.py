"""The performance page's benchmark tables are those ``python -m benchmarks.report`` makes of the
committed ``benchmarks/results/*.json`` (nothing is timed here)."""

from __future__ import annotations

import json
import shutil

import pytest

from benchmarks import report


def test_the_performance_page_matches_the_committed_results():
    text = report.PAGE.read_text(encoding="utf-8")
    sections = [m.group("name") for m in report._MARKED.finditer(text)]
    assert sorted(sections) == sorted(report.SECTIONS)      # every section is on the page, once
    assert report.stale_sections(text) == [], "run `python -m benchmarks.report --docs`"
    assert report.main(["--check"]) == 0


def _read_result(pc_s: float, pa_s: float) -> dict:
    row = {"engines": {"pc": {"status": "ok", "best_s": pc_s}, "pa1": {"status": "ok", "best_s": pa_s}},
           "ratios": {"pc/pa1": pc_s / pa_s}, "mb_per_s": {"pc": 10.0 / pc_s}, "check": {"status": "ok"}}
    return {"env": {"time": "2026-11-29T06:00:00+0000", "git_rev": "abc1234", "cpu_count": 2},
            "params": {"rows": 1000, "repeats": 2, "engines": ["pc", "pa1"]},
            "variants": [{"name": "dict_none", "file_bytes": 2_500_000, "columns": [], "table": row}]}


def test_read_table_shows_the_saved_times_and_ratio():
    md = report.render_read(_read_result(0.25, 0.125))
    assert "| dict_none | 2.5 | 250 | 125 | 40 | 2.00x | ok |" in md
    assert "1,000 rows, best of 2" in md


def test_a_new_result_makes_the_page_stale(tmp_path):
    """A rerun (a different JSON) is noticed, and --docs brings the page back in line."""
    results = tmp_path / "results"
    shutil.copytree(report.RESULTS, results)
    (results / "read.json").write_text(json.dumps(_read_result(0.3, 0.1)))
    page = tmp_path / "performance.md"
    shutil.copy(report.PAGE, page)
    assert report.stale_sections(page.read_text(encoding="utf-8"), results) == ["read"]
    assert report.main(["--check", "--page", str(page), "--results", str(results)]) == 1
    assert report.main(["--docs", "--page", str(page), "--results", str(results)]) == 0
    text = page.read_text(encoding="utf-8")
    assert report.stale_sections(text, results) == []
    assert "| dict_none | 2.5 | 300 | 100 | 33 | 3.00x | ok |" in text


def test_missing_or_foreign_results_are_refused(tmp_path):
    with pytest.raises(report.ReportError, match=r"read\.json.*python -m benchmarks\.read_bench"):
        report.render("read", tmp_path)
    (tmp_path / "alp.json").write_text(json.dumps({"values": 3}))
    with pytest.raises(report.ReportError, match="not a 'alp' benchmark result"):
        report.render("alp", tmp_path)
    with pytest.raises(report.ReportError, match="unknown benchmark section"):
        report.regenerate("<!-- bench:nope:start -->\nx\n<!-- bench:nope:end -->", tmp_path)
    with pytest.raises(report.ReportError, match="no matching end marker"):
        report.regenerate("<!-- bench:read:start -->\nx\n", tmp_path)


def test_the_docs_hook_warns_on_stale_tables(caplog, tmp_path, monkeypatch):
    """A warning fails ``mkdocs build --strict``."""
    from types import SimpleNamespace

    from tests._support.docs_hooks import hooks

    page = SimpleNamespace(file=SimpleNamespace(src_path="guide/performance.md"))
    text = report.PAGE.read_text(encoding="utf-8")
    with caplog.at_level("WARNING"):
        hooks.on_page_markdown(text, page, {}, None)
    assert not caplog.records
    stale = text.replace("<!-- bench:read:start -->\n", "<!-- bench:read:start -->\nan old table\n")
    with caplog.at_level("WARNING"):
        hooks.on_page_markdown(stale, page, {}, None)
    assert any("benchmark tables ['read']" in r.getMessage() for r in caplog.records)
