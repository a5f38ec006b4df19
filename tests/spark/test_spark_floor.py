"""The floor, measured every CI run: ``benchmarks/spark_bench.py --floor --check`` with
ratio-based bounds, so a regression in what pqcore adds shows.

* pqcore's first query of a new application within +1.0 s of a Python data source that
  does nothing (``pqtrivial``: Spark's own cost for any);
* the full scan and ``groupBy`` within 1.2x of the floor (``format("pqfloor")``: pqcore's plan
  with the decoding taken out), issue 35's aim.  In every turn pqcore and the floor run back to
  back, and the bound holds the median of the turns' pqcore / floor ratios: a busy moment of
  the machine falls on both halves of a pair, and one odd turn cannot move a median.  (Comparing
  each reader's best turn instead paired a lucky floor turn with an ordinary pqcore one: on a
  quiet machine single turns measured 0.79-1.44x, medians of five 1.00-1.20x.)  Seven turns a
  measurement; a report over its
  bounds is measured again, up to three times, the turns pooled.

What the gap is made of (``python -m benchmarks.spark_task_read DIR --profile``: a task's
worker-side read without Spark): each of the two tasks spends 33-40 ms of CPU in its Python
worker against ~3 ms for the floor's, and the two run side by side on the two cores, so the
floor's ~0.38 s gets about 0.04-0.08 s more.  Nine tenths of that CPU is the engine decoding
(dictionary indices, decompression, page framing, the column decoder, strings, each 12-25 %),
the adapter's own share is ~4 %.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import spark_bench

REPO = Path(__file__).resolve().parents[2]

FIRST_QUERY_SLACK_S = spark_bench.FIRST_QUERY_SLACK_S
SCAN_OVER_FLOOR = spark_bench.SCAN_GUARD


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.quiet
def test_first_query_and_scans_near_the_floor(tmp_path):
    from tests._support.spark_checks import spark_skip_reason as _skip_reason

    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    report = _measure(tmp_path / "floor1.json")
    for attempt in (2, 3):
        if _within_bounds(report):
            break
        # a CI machine has busy moments: a regression shows in every turn, noise in a few
        report = merge(report, _measure(tmp_path / f"floor{attempt}.json"))
    print(spark_bench.doc_block(report))
    for name, s in report["scans"].items():
        print(f"{name}: pqcore / floor {s['pqcore/floor']:.2f}x, median of the turns "
              f"{[round(r, 2) for r in s['ratios']]} (aim {spark_bench.SCAN_TARGET}x)")
    assert report["first_query_over_trivial"] <= FIRST_QUERY_SLACK_S, report["first_query"]
    for name, s in report["scans"].items():
        assert s["pqcore/floor"] <= SCAN_OVER_FLOOR, (name, s)


def _measure(out):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "benchmarks.spark_bench", "--floor", "--check", "--rows", "400000",
                           "--files", "4", "--repeats", "7", "--json", str(out)],
                          cwd=str(REPO), env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return json.loads(out.read_text())


def merge(a: dict, b: dict) -> dict:
    """Two reports as one: every scan's turns pooled (best times and the median ratio over
    all of them), and the first queries' runs pooled (best of all)."""
    out = json.loads(json.dumps(a))
    for name, s in out["scans"].items():
        turns = {k: s["turns"][k] + b["scans"][name]["turns"][k] for k in s["turns"]}
        out["scans"][name] = spark_bench.scan_figures(turns)
    for k, runs in b["first_query_runs"].items():
        out["first_query_runs"][k] = a["first_query_runs"][k] + runs
        out["first_query"][k] = min(out["first_query_runs"][k])
    out["first_query_over_trivial"] = out["first_query"]["pqcore"] - out["first_query"]["pqtrivial"]
    out["repeats"] = a["repeats"] + b["repeats"]
    return out


def _report(turns: dict, first: dict) -> dict:
    return {"repeats": len(turns["pqcore"]), "scans": {"q": spark_bench.scan_figures(turns)},
            "first_query_runs": {k: [v] for k, v in first.items()}, "first_query": dict(first),
            "first_query_over_trivial": first["pqcore"] - first["pqtrivial"]}


def test_the_ratio_is_the_median_of_paired_turns():
    """A lucky floor turn (0.5 s) beside ordinary pqcore turns: each reader's best time would
    give 1.8x, the turns' ratios are 1.0, 1.8 and 1.0x, so the median is 1.0x."""
    s = spark_bench.scan_figures({"builtin": [0.3, 0.2, 0.3], "pqcore": [1.0, 0.9, 1.1], "floor": [1.0, 0.5, 1.1]})
    assert s["builtin"] == 0.2 and s["pqcore"] == 0.9 and s["floor"] == 0.5
    assert s["ratios"] == [1.0, 1.8, 1.0] and s["pqcore/floor"] == 1.0
    # a slow pqcore shows in every turn, so in the median too
    slow = spark_bench.scan_figures({"builtin": [1, 1, 1, 1], "pqcore": [1.5, 1.3, 1.4, 2.0], "floor": [1, 1, 1, 1]})
    assert slow["pqcore/floor"] == (1.4 + 1.5) / 2


def test_merge_pools_the_turns():
    a = _report({"builtin": [1.0], "pqcore": [3.0], "floor": [2.0]}, {"pqcore": 5.0, "pqtrivial": 3.0})
    b = _report({"builtin": [2.0, 2.0], "pqcore": [2.2, 2.4], "floor": [2.1, 2.0]}, {"pqcore": 4.0, "pqtrivial": 3.5})
    m = merge(a, b)
    q = m["scans"]["q"]
    assert (q["builtin"], q["pqcore"], q["floor"]) == (1.0, 2.2, 2.0) and m["repeats"] == 3
    assert q["ratios"] == [1.5, 2.2 / 2.1, 1.2] and q["pqcore/floor"] == 1.2
    assert m["first_query"] == {"pqcore": 4.0, "pqtrivial": 3.0} and m["first_query_over_trivial"] == 1.0
    assert _score(m) == max(1.0 - FIRST_QUERY_SLACK_S, 1.2 - SCAN_OVER_FLOOR)
    assert not _within_bounds(merge(a, a))
    assert SCAN_OVER_FLOOR == spark_bench.SCAN_TARGET == 1.2


def _score(report) -> float:
    """How far over its bounds a report is (<= 0: within them)."""
    return max([report["first_query_over_trivial"] - FIRST_QUERY_SLACK_S]
               + [s["pqcore/floor"] - SCAN_OVER_FLOOR for s in report["scans"].values()])


def _within_bounds(report) -> bool:
    return _score(report) <= 0


def test_the_document_block_is_generated(tmp_path):
    """``--write-doc`` replaces only the block between the markers, and the document has them."""
    doc = tmp_path / "d.md"
    doc.write_text(f"# t\n\n{spark_bench.DOC_BEGIN} (cmd) -->\nold\n{spark_bench.DOC_END}\n\nafter\n")
    report = {"rows": 10, "files": 1, "repeats": 1, "spark": "4.3.0", "python": "3.11", "cpus": 2,
              "scans": {"full scan": spark_bench.scan_figures({"builtin": [0.1], "pqcore": [0.2], "floor": [0.19]})},
              "first_query": {"builtin": 0.5, "pqtrivial": 1.5, "pqcore": 1.75},
              "first_query_runs": {"pqcore": [1.75]}, "first_query_over_trivial": 0.25}
    spark_bench.write_doc(report, doc)
    text = doc.read_text()
    assert "old" not in text and text.endswith(f"{spark_bench.DOC_END}\n\nafter\n")
    assert "| full scan | 0.10 s | 0.20 s | 0.19 s | 1.05x |" in text and "(+0.25 s over" in text
    real = spark_bench.DOC.read_text()
    assert spark_bench.DOC_BEGIN in real and spark_bench.DOC_END in real
