"""Build the shipped compatibility table (parquet_core/_data/compat_table.json) from ``pqc compat --json`` runs.

    python -m parquet_core.compat.table RUN.json [RUN2.json ...]
    python -m parquet_core.compat.table --fresh RUN.json [...]   # forget the table's measurements

Per reader and per version measured: every feature whose verdict was not
``ok`` (``n/a`` cells are left out: they say what the harness could not give
the reader, not what it cannot read).  Runs of different versions of one
reader (e.g. ``pqc compat --python pyarrow=/tmp/venv-pa15/bin/python``) each
add a version; the newest is the entry's ``version``/``features`` (the layout
of a one-version table), the others are under ``older_versions``.

The runs are merged onto the measurements already in the table (unless
``--fresh``): a cell a run measured replaces the same reader version's cell
(an ``ok`` removes a finding), later runs (by ``generated``) after earlier
ones; versions no run measured are kept.  The hand entries (``release_notes``:
feature, first version that reads it, the release note cited) are always kept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from parquet_core.metadata.features import READERS as TARGET_RULES
from parquet_core.metadata.features import TABLE_PATH, measured_versions, version_key

__all__ = ["build", "main"]

_FAILED = ("refused", "different", "crash")


def _merge_run(measured: dict[str, dict[str, dict]], run: dict) -> None:
    """Fold one run's cells into *measured*: reader -> version -> {"generated", "features"}."""
    for name, version in run["readers"].items():
        if name not in TARGET_RULES or version == "unavailable":
            continue
        entry = measured.setdefault(name, {}).setdefault(version, {"generated": "", "features": {}})
        entry["generated"] = max(entry["generated"], run.get("generated", ""))
        found = entry["features"]
        for row in run["features"]:
            if row.get("writer", "pc") != "pc":
                continue
            cell = row["results"].get(name)
            if not cell:
                continue
            if cell["verdict"] in _FAILED:
                found[row["feature"]] = {"verdict": cell["verdict"], "detail": cell["detail"][:200]}
            elif cell["verdict"] == "ok":
                found.pop(row["feature"], None)


def build(runs: list[dict], old: dict | None = None, fresh: bool = False) -> dict:
    """The table from *runs*, merged onto *old*'s measurements (not with *fresh*) and its release notes."""
    old = old or {}
    old_readers = old.get("readers", {})
    measured: dict[str, dict[str, dict]] = {}
    if not fresh:
        for name, previous in old_readers.items():
            for version, m in measured_versions(previous).items():
                measured.setdefault(name, {})[version] = {"generated": m.get("generated", old.get("generated", "")),
                                                          "features": dict(m.get("features", {}))}
    for run in sorted(runs, key=lambda r: r.get("generated", "")):
        _merge_run(measured, run)
    readers: dict[str, dict] = {}
    for name in sorted(set(measured) | set(old_readers)):
        versions = measured.get(name, {})
        notes = old_readers.get(name, {}).get("release_notes", [])
        if not versions:
            continue
        order = sorted(versions, key=version_key)
        newest = order[-1]
        entry: dict = {"version": newest, "features": versions[newest]["features"]}
        if len(order) > 1:
            entry["older_versions"] = {v: {"generated": versions[v]["generated"],
                                           "features": versions[v]["features"]} for v in reversed(order[:-1])}
        entry["release_notes"] = notes
        readers[name] = entry
    return {"about": "built by python -m parquet_core.compat.table from pqc compat --json runs; "
                     "release_notes entries are hand-written from the cited release notes",
            "generated": max([r.get("generated", "") for r in runs] + [old.get("generated", "")]),
            "readers": readers}


def main(argv: list[str]) -> int:
    fresh = "--fresh" in argv
    paths = [a for a in argv if a != "--fresh"]
    if not paths:
        print("usage: python -m parquet_core.compat.table [--fresh] RUN.json [RUN2.json ...]", file=sys.stderr)
        return 2
    runs = [json.loads(Path(a).read_text(encoding="utf-8")) for a in paths]
    old = json.loads(TABLE_PATH.read_text(encoding="utf-8")) if TABLE_PATH.exists() else None
    TABLE_PATH.write_text(json.dumps(build(runs, old, fresh), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {TABLE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
