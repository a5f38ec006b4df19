"""``col(g).intersects(bbox)``: row groups pruned by GeospatialStatistics, rows by each value's box.

Expected row sets are computed here from the points' coordinates directly
(not through the WKB walk under test); expected prunes on the corpus come
from the boxes pyarrow reads from the files.
"""

from __future__ import annotations

import os
import struct

import pytest

import parquet_core as pc

DATA = os.environ.get("PARQUET_TEST_DATA", "")
POLYS = os.path.join(DATA, "geospatial", "geography-polygons.parquet")


def _pt(x: float, y: float) -> bytes:
    return struct.pack("<BIdd", 1, 1, x, y)


def _line(*xy: float) -> bytes:
    return struct.pack("<BII", 1, 2, len(xy) // 2) + struct.pack(f"<{len(xy)}d", *xy)


@pytest.fixture()
def points(tmp_path):
    # four row groups, one per quadrant-ish block; nulls and an empty line in the last
    coords = [(float(x), float(y)) for x in range(0, 40, 2) for y in (-5.0, 5.0)]
    values: list[bytes | None] = [_pt(x, y) for x, y in coords]
    values[-1] = None
    values[-2] = _line()                       # LINESTRING EMPTY: no box
    schema = pc.schema([pc.field("id", pc.int64()), pc.field("g", pc.geometry())])
    path = tmp_path / "pts.parquet"
    pc.write_table({"id": list(range(len(values))), "g": values}, path, schema=schema, row_group_size=10)
    return path, coords


def _expected(coords, box, n):
    x0, y0, x1, y1 = box
    return [i for i, (x, y) in enumerate(coords) if i < n - 2 and x0 <= x <= x1 and y0 <= y <= y1]


@pytest.mark.parametrize("box", [(0, 0, 3, 10), (11, -6, 13.5, 6), (100, 0, 200, 1), (30, -5, 35, -5)])
def test_row_groups_pruned_and_rows_exact(points, box):
    path, coords = points
    pf = pc.ParquetFile(path)
    expr = pc.col("g").intersects(box)
    got = pf.read(filters=expr).column("id").to_pylist()
    want = _expected(coords, box, len(coords))
    assert got == want
    report = pf.explain(expr)
    # a group survives exactly when one of its points lies in the box
    groups_with_hits = sorted({i // 10 for i in want})
    assert report.kept == groups_with_hits, report
    # the DNF form means the same
    assert pf.read(filters=[("g", "intersects", box)]).column("id").to_pylist() == want


def test_negation_keeps_empty_not_null(points):
    path, coords = points
    box = (0, 0, 3, 10)
    got = pc.ParquetFile(path).read(filters=~pc.col("g").intersects(box)).column("id").to_pylist()
    n = len(coords)
    hits = set(_expected(coords, box, n))
    assert got == [i for i in range(n - 1) if i not in hits]   # the empty line is kept, the null not


def test_lines_use_their_box(tmp_path):
    schema = pc.schema([pc.field("g", pc.geometry())])
    path = tmp_path / "l.parquet"
    pc.write_table({"g": [_line(0, 0, 10, 10), _line(20, 20, 21, 25)]}, path, schema=schema)
    got = pc.read_table(path, filters=pc.col("g").intersects((4, 6, 5, 7))).column("g").to_pylist()
    assert got == [_line(0, 0, 10, 10)]


def test_bad_boxes():
    with pytest.raises(ValueError):
        pc.col("g").intersects((0, 5, 1, 1))
    with pytest.raises(TypeError):
        pc.col("g").intersects("abc")


@pytest.mark.skipif(not os.path.exists(POLYS), reason="PARQUET_TEST_DATA not available")
@pytest.mark.parametrize("box", [(170, -80, -170, -40), (-10, -10, 10, 10), (150, -70, 160, -60)])
def test_corpus_geography_prunes_by_stored_boxes(box):
    """Prunes on DataFusion's boxes (wrapping ones included) match a check of pyarrow's view of them."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(POLYS).metadata
    qx0, qy0, qx1, qy1 = box
    want = []
    for rg in range(meta.num_row_groups):
        s = meta.row_group(rg).column(1).geo_statistics
        y_ok = s.ymin <= qy1 and s.ymax >= qy0
        xs = [(s.xmin, 180.0), (-180.0, s.xmax)] if s.xmin > s.xmax else [(s.xmin, s.xmax)]
        qs = [(qx0, 180.0), (-180.0, qx1)] if qx0 > qx1 else [(qx0, qx1)]
        x_ok = any(a0 <= b1 and b0 <= a1 for a0, a1 in xs for b0, b1 in qs)
        if y_ok and x_ok:
            want.append(rg)
    report = pc.ParquetFile(POLYS).explain(pc.col("geometry").intersects(box))
    assert report.kept == want
    assert 0 < len(want) < meta.num_row_groups


def test_geography_rows_use_the_spherical_box(tmp_path):
    # A great-circle arc from (170, 60) to (-170, 60) crosses the antimeridian and peaks at
    # atan(tan 60 / cos 10) = 60.378 degrees (closed form), above both of its vertices.
    import math

    peak = math.degrees(math.atan(math.tan(math.radians(60)) / math.cos(math.radians(10))))
    assert 60.37 < peak < 60.39
    values = [_line(170.0, 60.0, -170.0, 60.0), _line(10.0, 0.0, 11.0, 0.0)]
    for kind, expected in ((pc.geography(), [0]), (pc.geometry(), [])):
        path = tmp_path / f"{kind.name}.parquet"
        pc.write_table({"id": [0, 1], "g": values}, path, schema=pc.schema([pc.field("id", pc.int64()),
                                                                         pc.field("g", kind)]))
        box = (179.5, 60.2, 180.0, 60.5)           # round the peak, north of both vertices
        got = pc.read_table(path, filters=pc.col("g").intersects(box)).column("id").to_pylist()
        # on the sphere the arc passes through the box; as a planar line (GEOMETRY) it does not
        assert got == expected, kind
