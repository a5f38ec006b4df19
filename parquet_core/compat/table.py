"""Build the shipped compatibility table (parquet_core/_data/compat_table.json) from a ``pqc compat --json`` run.

    python -m parquet_core.compat.table RUN.json [RUN2.json ...]

Per reader: the version measured and every feature whose verdict was not
``ok`` (``n/a`` cells are left out: they say what the harness could not give
the reader, not what it cannot read).  The hand entries (``release_notes``:
feature, first version that reads it, the release note cited) already in the
table are kept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from parquet_core.metadata.features import READERS as TARGET_RULES, TABLE_PATH


def build(runs: list[dict], old: dict | None = None) -> dict:
    old = old or {}
    readers: dict[str, dict] = {}
    for run in runs:
        for name, version in run["readers"].items():
            if name not in TARGET_RULES or version == "unavailable":
                continue
            entry = readers.setdefault(name, {"version": version, "features": {}})
            for row in run["features"]:
                if row.get("writer", "pc") != "pc":
                    continue
                cell = row["results"].get(name)
                if cell and cell["verdict"] in ("refused", "different", "crash"):
                    entry["features"][row["feature"]] = {"verdict": cell["verdict"],
                                                         "detail": cell["detail"][:200]}
    for name, entry in readers.items():
        entry["release_notes"] = old.get("readers", {}).get(name, {}).get("release_notes", [])
    for name, entry in old.get("readers", {}).items():
        readers.setdefault(name, entry)
    return {"about": "built by python -m parquet_core.compat.table from pqc compat --json runs; "
                     "release_notes entries are hand-written from the cited release notes",
            "generated": max((r.get("generated", "") for r in runs), default=""),
            "readers": dict(sorted(readers.items()))}


def main(argv: list[str]) -> int:
    runs = [json.loads(Path(a).read_text(encoding="utf-8")) for a in argv]
    old = json.loads(TABLE_PATH.read_text(encoding="utf-8")) if TABLE_PATH.exists() else None
    TABLE_PATH.write_text(json.dumps(build(runs, old), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {TABLE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
