"""The data of the deployment tests, written by pyarrow, and pyarrow's answers to the
queries ``deploy_driver.py`` runs."""

from __future__ import annotations

import os
from pathlib import Path

ROWS = 3000


def write_data(root: Path) -> Path:
    """``plain/``: 3 files x 2 row groups of ``id`` (0..2999), ``g = id % 5``, ``x = id / 2``,
    with page indexes and a Bloom filter on ``id`` (so every pqmeta level has rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    plain = root / "plain"
    plain.mkdir(parents=True, exist_ok=True)
    per = ROWS // 3
    for i in range(3):
        ids = pa.array(range(i * per, (i + 1) * per), pa.int64())
        t = pa.table({"id": ids, "g": pa.array([v % 5 for v in ids.to_pylist()], pa.int32()),
                      "x": pa.array([v / 2 for v in ids.to_pylist()], pa.float64())})
        pq.write_table(t, plain / f"part-{i}.parquet", row_group_size=per // 2, write_page_index=True,
                       bloom_filter_options={"id": True})
    return root


def expected(root: Path) -> dict:
    """pyarrow's answers (and, for pqmeta, what pyarrow's metadata says where it can)."""
    import pyarrow.compute as pcmp
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    plain = root / "plain"
    t = ds.dataset(str(plain)).to_table()
    ids, g = t["id"], t["g"]

    def count_sum(mask, col="id"):
        sel = t.filter(mask)
        return [sel.num_rows, pcmp.sum(sel[col]).as_py()]

    files = sorted(plain.glob("*.parquet"))
    metas = [pq.ParquetFile(f).metadata for f in files]
    late = t.filter(pcmp.greater_equal(ids, 2000))
    return {
        "count": t.num_rows,
        "filter_option": count_sum(pcmp.and_(pcmp.equal(g, 1), pcmp.less(ids, 1500))),
        "groups": sorted([k, n] for k, n in zip(*[c.to_pylist() for c in
                                                  late.group_by("g").aggregate([("id", "count")]).columns])),
        "partitioned_g2": count_sum(pcmp.equal(g, 2)),
        "kartothek_g3": count_sum(pcmp.equal(g, 3)),
        "skipping": t.filter(pcmp.less(ids, 100)).num_rows,
        "encrypted": [t.num_rows, pcmp.sum(t["x"]).as_py()],
        "pqmeta": {"file": len(files), "rowgroup": sum(m.num_row_groups for m in metas),
                   "column": sum(m.num_row_groups * m.num_columns for m in metas)},
    }


def check(result: dict, want: dict, out: Path) -> None:
    """*result* (a driver's RESULT) against *want*; the written outputs against pyarrow."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    for key in ("count", "filter_option", "groups", "partitioned_g2", "kartothek_g3", "skipping"):
        assert result[key] == want[key], (key, result[key], want[key])
    n, s = result["encrypted"]
    assert n == want["encrypted"][0] and abs(s - want["encrypted"][1]) < 1e-6, result["encrypted"]
    for level, n in want["pqmeta"].items():
        assert result["pqmeta"][level] == n, (level, result["pqmeta"], want["pqmeta"])
    assert all(v > 0 for v in result["pqmeta"].values()), result["pqmeta"]
    # what the cluster wrote, read by pyarrow: hive partitions g=0..4, every row once
    part = ds.dataset(str(out / "partitioned"), partitioning="hive").to_table()
    assert part.num_rows == want["count"] and sorted(set(part["g"].to_pylist())) == [0, 1, 2, 3, 4]
    # the encrypted files are unreadable without the keys
    files = [os.path.join(d, f) for d, _, fs in os.walk(out / "encrypted") for f in fs if f.endswith(".parquet")]
    assert files
    for f in files:
        try:
            pq.read_table(f)
        except Exception:   # noqa: BLE001 - any refusal: pyarrow has no keys
            continue
        raise AssertionError(f"{f} is readable without keys")
