"""Paths of the xskipper conformance resources (metadata written by xskipper on Spark 3.0.1),
shared by the xskipper and Spark tests."""

from __future__ import annotations

import contextlib
import fcntl
import glob
import json
import os
import shutil

from parquet_core_integrations.xskipper.store import IndexMeta, MetadataStore

XSKIPPER = os.environ.get("XSKIPPER_RESOURCES", os.path.join(os.path.dirname(__file__), "../../../shared/xskipper"))
if not os.path.isdir(XSKIPPER):
    XSKIPPER = "/work/shared/xskipper"
END_TO_END = os.path.join(XSKIPPER, "parquet_version_tests", "end_to_end")
STORED_PREFIX = "/tmp/xskipper_version_tests/"


def fixture_dir(version: int, test_id: int) -> str | None:
    """The metadata directory xskipper wrote for a version test, or None if not shared."""
    hits = glob.glob(os.path.join(END_TO_END, f"version={version}", f"testID={test_id}", "*"))
    return hits[0] if hits else None


def version_tests() -> list[dict]:
    with open(os.path.join(XSKIPPER, "test_config", "ParquetVersionTests.json")) as fh:
        return [t["testDescription"] for t in json.load(fh)["versionTests"]]


def local_path(stored: str) -> str:
    """A path as stored in obj_name / tableIdentifier, mapped to the shared copy."""
    return os.path.join(XSKIPPER, stored[len(STORED_PREFIX):]) if stored.startswith(STORED_PREFIX) else stored


@contextlib.contextmanager
def exclusive_stored_prefix():
    """Exclusive use of ``STORED_PREFIX``, the absolute path xskipper's stores name.

    Tests that must put a dataset where a fixture store says it was take a
    file lock (so concurrent runs wait instead of clashing), clear what a
    killed run may have left, and remove the folder afterwards.
    """
    with open(STORED_PREFIX.rstrip("/") + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(STORED_PREFIX, ignore_errors=True)
        try:
            yield STORED_PREFIX
        finally:
            shutil.rmtree(STORED_PREFIX, ignore_errors=True)


def store_with(cells, kind, partitions=None, extra=None):
    """A MetadataStore over ``[(obj_name, cell)]`` for one index on column ``x``."""
    s = MetadataStore.__new__(MetadataStore)
    s.md_dir, s.version, s.table_identifier, s.encryption = "/md", 4, "/t", {}
    s.indexes = [IndexMeta(kind, ["x"], column="x_" + kind)]
    s.partition_columns = [(p, "string") for p in (partitions or [])]
    s.index_rows, s._unloaded, s._bloom_cache = [], set(), {}
    for i, (fid, cell) in enumerate(cells):
        row = {"obj_name": fid, "x_" + kind: cell}
        if extra:
            row.update(extra[i])
        s.index_rows.append(row)
    return s
