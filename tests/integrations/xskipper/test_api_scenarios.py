"""xskipper's API test scenarios (``test_config/APITests.json``) on the Parquet copies of the datasets.

Each scenario's indexes are built with parquet_core (no Spark); its WHERE
clause is written below as a parquet_core expression (per view for the UNION
and JOIN scenarios).  The expected skipped files come from the JSON.
Left out: 7 and 8 (CSV only: the 'empty' dataset has no Parquet copy) and
21, 22 (they modify the dataset between build and query).
"""

from __future__ import annotations

import json
import os

import pytest

import parquet_core as pc
from parquet_core_integrations.xskipper import Xskipper
from tests._support.xskipper import XSKIPPER

c = pc.col
LETTERS = ["Telaviv", *"abcdefghijklmnop"]
T = c("temp")
WHERE = {
    0: T.isin([10, 12, 11]), 1: T.isin([1.1, 32.2]),
    2: T.isin([10, 10.1, 10.2, 10.3, 10.4, 10.15, 10.25, 10.22, 10.5, 11, 12, 10.9]),
    3: T.isin(list(range(100, 202))), 4: [("address", "not in", ["Jerusalem", "Batyam"])],
    5: (T != 0.1) & (T != 1.1) & (T != 2.2), 6: c("account_name") > "qqq",
    9: T > 10, 10: T > -5, 11: c("address").isin(["H"]), 12: c("address").isin(["H"]),
    13: c("address").isin(["H"]) & (T > 10), 14: c("address").isin(["H"]) & (T > 10),
    15: c("address").isin(["H"]), 16: T.isin([21.1]), 17: c("num").isin([21]),
    18: c("address").isin(LETTERS), 19: c("address").isin(LETTERS),
    20: (T >= 0) & (T <= 10), 23: (T >= 0) & (T <= 10), 24: (T >= 0) & (T <= 10),
    25: c("address").isin(["H"]) | (T < 11.1), 26: T < 10.1, 27: T == 0.1, 28: T <= 10.1,
    29: c("address").isin(["Jerusalem" + "m" * 243 + "zzzz"]),
    30: c("address").isin(["Jerusalem"]) & (T >= 0) & (T <= 15), 31: c("tEmP") <= 10.1,
    32: {"a": T < 10, "b": T < 5}, 33: {"a": T < 10, "b": T < 9.5},
    34: (c("address") == "J") | (T < 2), 35: (c("address") == "J") | (T < 2),
    36: ((c("address") == "J") | (T < 2)) | (T > 20),
    37: ((c("comments") == "J") & (T < 2)) | (T > 30),
    38: ~((c("comments") == "J") & (T < 2)) | (T > 30),
    39: ~(((c("comments") == "J") & (T < 2)) | (T <= 30)),
}
# scenario 5 is the MinMax `<>` case: see test_version_fixtures.OURS_DIFFERS
OURS_DIFFERS = {5: set()}
ADD = {"minmax": "add_min_max_index", "valuelist": "add_value_list_index", "bloomfilter": "add_bloom_filter_index"}


def _scenarios():
    path = os.path.join(XSKIPPER, "test_config", "APITests.json")
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        tests = json.load(fh)["tests"]
    return [pytest.param(i, t, id=f"{i}-{t['name'][:40]}") for i, t in enumerate(tests) if i in WHERE]


@pytest.mark.parametrize("number,scenario", _scenarios())
def test_api_scenario(tmp_path, number, scenario):
    for loc in scenario["inputLocations"]:
        dataset = os.path.join(XSKIPPER, loc["inputLocation"], "parquet") + ("/" if number == 24 else "")
        xs = Xskipper(None, dataset, str(tmp_path / "md"))
        builder = xs.index_builder()
        for spec in loc["indexTypes"]:
            kind, col = spec.split(" ", 1)
            getattr(builder, ADD[kind])(col)
        builder.build()
        where = WHERE[number]
        pred = where[loc["viewName"]] if isinstance(where, dict) else where
        skipped = set()
        for fid in xs.skipped_files(pred).skipped:
            rel = os.path.relpath(fid.rsplit("#", 1)[0], xs.root)
            skipped.add(rel.split(".")[0])
        assert skipped == OURS_DIFFERS.get(number, set(loc["expectedSkippedFiles"]))
