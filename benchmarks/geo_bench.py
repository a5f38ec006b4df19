"""WKB bounding boxes: geometries/s of ``wkb_bounds`` (planar) and ``spherical_bounds`` (GEOGRAPHY).

Run from the repository root::

    python benchmarks/geo_bench.py [--values 200000] [--repeat 3]

Inputs (fixed seed): 2D little-endian points, 20-vertex LineStrings and
polygons of one 5-point ring (pages of one such kind take vectorised
parses), and ``MULTIPOINT`` of 4 big-endian points (the per-geometry walk,
which the format forces in general: every WKB header is variable length
and read in order).  Reported: best CPU time of
``--repeat`` runs as geometries/s and MB/s of WKB.  The spherical bounder
(GEOGRAPHY, great-circle edges) runs on the same inputs.
"""

from __future__ import annotations

import argparse
import struct
import time

import numpy as np

from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.geography import spherical_bounds
from parquet_core.metadata.geospatial import wkb_bounds

SEED = 20


def _inputs(n: int) -> dict[str, ByteArrays]:
    rng = np.random.default_rng(SEED)
    xy = rng.uniform(-180, 180, size=(n, 2))
    points = [struct.pack("<BIdd", 1, 1, x, y) for x, y in xy]
    polys = [struct.pack("<BIII", 1, 3, 1, 5) + struct.pack("<10d", x, y, x + 1, y, x + 1, y + 1, x, y + 1, x, y)
             for x, y in xy]
    multi = [struct.pack(">BII", 0, 4, 4) + b"".join(struct.pack(">BIdd", 0, 1, x + k, y) for k in range(4))
             for x, y in xy]
    lines = [struct.pack("<BII", 1, 2, 20) + np.column_stack(
        [np.linspace(x, x + 30, 20), np.linspace(y / 2, y / 2 + 10, 20)]).astype("<f8").tobytes()
        for x, y in xy[:, :2]]
    return {"points (vectorised)": ByteArrays.from_pylist(points),
            "lines20 LE (vectorised)": ByteArrays.from_pylist(lines),
            "polygons LE (vectorised)": ByteArrays.from_pylist(polys),
            "multipoints BE (walk)": ByteArrays.from_pylist(multi)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--values", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for name, values in _inputs(args.values).items():
        mb = int(values.offsets[-1]) / 1e6
        for label, fn in (("planar", wkb_bounds), ("spherical", spherical_bounds)):
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.process_time()
                fn(values)
                best = min(best, time.process_time() - t0)
            print(f"{label:9s} {name:24s} {len(values) / best:14,.0f} geometries/s {mb / best:8.1f} MB/s")


if __name__ == "__main__":
    main()
