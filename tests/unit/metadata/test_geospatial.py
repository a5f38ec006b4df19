"""Geospatial statistics (Geospatial.md): WKB walk, write path, read path.

Expected values: the statistics Arrow C++ and DataFusion stored in the
corpus's ``geospatial/`` files, and WKB built by hand from the OGC layout.
"""

from __future__ import annotations

import glob
import io
import math
import os
import struct

import numpy as np
import pytest

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.geospatial import (
    GeospatialStatsBuilder, bbox_intersects, wkb_bounds,
)

DATA = os.environ.get("PARQUET_TEST_DATA", "")
GEO_FILES = sorted(glob.glob(os.path.join(DATA, "geospatial", "*.parquet")))
needs_corpus = pytest.mark.skipif(not GEO_FILES, reason="PARQUET_TEST_DATA/geospatial not available")


def _geo_leaf(pf: pc.ParquetFile) -> int:
    names = [c.path_in_schema for c in pf.metadata.row_group(0).columns] \
        if hasattr(pf.metadata.row_group(0), "columns") else None
    for i in range(pf.metadata.num_columns):
        if pf.metadata.row_group(0).column(i).descriptor.data_type.name in ("geometry", "geography"):
            return i
    raise AssertionError(f"no geospatial column ({names})")


@needs_corpus
@pytest.mark.parametrize("path", GEO_FILES, ids=os.path.basename)
def test_rewritten_stats_equal_stored(path: str) -> None:
    """Each row group, re-written by us, gets the statistics the other writer stored."""
    pf = pc.ParquetFile(path)
    leaf = _geo_leaf(pf)
    kind = pf.metadata.row_group(0).column(leaf).descriptor.data_type.name
    for rg in range(pf.metadata.num_row_groups):
        theirs = pf.metadata.row_group(rg).column(leaf).meta.geospatial_statistics
        buf = io.BytesIO()
        pc.write_table(pf.read_row_group(rg), buf)
        buf.seek(0)
        ours = pc.ParquetFile(buf).metadata.row_group(0).column(leaf).meta.geospatial_statistics
        if theirs is None:          # Arrow C++ stores none for GEOGRAPHY
            assert kind == "geography" and ours.bbox is not None
            continue
        assert ours.geospatial_types == theirs.geospatial_types, (rg, ours, theirs)
        if kind == "geometry":
            assert ours == theirs, (rg, ours, theirs)
        else:
            # a spherical box: compared with DataFusion's (S2) in test_geography.py
            assert ours.bbox is not None


@needs_corpus
@pytest.mark.parametrize("name", ["geography-points.parquet", "geography-lines.parquet",
                                  "geography-polygons.parquet"])
def test_stored_geography_boxes_cover_every_vertex(name: str) -> None:
    """DataFusion's boxes (some wrapping, xmin > xmax) hold each value's vertex box."""
    pf = pc.ParquetFile(os.path.join(DATA, "geospatial", name))
    leaf = _geo_leaf(pf)
    wrapped = 0
    for rg in range(pf.metadata.num_row_groups):
        geo = pf.metadata.row_group(rg).column(leaf).geospatial_statistics
        b = geo.bbox
        wrapped += b.xmin > b.xmax
        arr = pf.read_row_group(rg).column(leaf)
        boxes, _ = wkb_bounds(arr.values)
        for (x0, y0, *_), (x1, y1, *_) in boxes[:, :, :]:
            for x in (x0, x1):
                for y in (y0, y1):
                    # S2 converts through unit vectors: allow a few ulps (1e-9 degrees)
                    e = 1e-9
                    assert bbox_intersects(b.xmin, b.xmax, b.ymin, b.ymax, (x - e, y - e, x + e, y + e)), \
                        (rg, x, y, b)
    if name == "geography-polygons.parquet":
        assert wrapped > 0      # the file does exercise the wraparound rule


@needs_corpus
def test_read_exposes_stats() -> None:
    pf = pc.ParquetFile(os.path.join(DATA, "geospatial", "geospatial-with-nan.parquet"))
    chunk = pf.metadata.row_group(0).column(2)
    geo = chunk.geospatial_statistics
    assert geo.geospatial_types == (3001, 3002)
    assert geo.bbox.to_dict() == {"xmin": 10.0, "xmax": 130.0, "ymin": 20.0, "ymax": 140.0,
                                  "zmin": 30.0, "zmax": 150.0, "mmin": 40.0, "mmax": 160.0}
    assert chunk.to_dict()["geospatial_statistics"]["geospatial_types"] == [3001, 3002]
    assert pf.metadata.row_group(0).column(0).geospatial_statistics is None


# -- hand-built WKB ----------------------------------------------------------------------------------

def _pt(x: float, y: float, *zm: float, code: int = 1, le: bool = True) -> bytes:
    e = "<" if le else ">"
    return struct.pack(e + "BI" + "d" * (2 + len(zm)), 1 if le else 0, code, x, y, *zm)


def _bounds(*values: bytes) -> tuple[np.ndarray, np.ndarray]:
    return wkb_bounds(ByteArrays.from_pylist(list(values)))


def test_big_endian_and_iso_zm_codes() -> None:
    boxes, codes = _bounds(_pt(1, 2, le=False), _pt(1, 2, 3, code=1001), _pt(1, 2, 4, code=2001),
                           _pt(1, 2, 3, 4, code=3001))
    assert codes.tolist() == [1, 1001, 2001, 3001]
    assert boxes[0, 0].tolist()[:2] == [1, 2] and math.isnan(boxes[0, 0, 2])
    assert boxes[1, 0, 2] == 3 and math.isnan(boxes[1, 0, 3])
    assert boxes[2, 0, 3] == 4 and math.isnan(boxes[2, 0, 2])
    assert boxes[3, 1].tolist() == [1, 2, 3, 4]


def test_ewkb_flags_and_srid_map_to_iso() -> None:
    z_srid = struct.pack("<BIi3d", 1, 0x80000001 | 0x20000000, 4326, 5, 6, 7)
    boxes, codes = _bounds(z_srid)
    assert codes.tolist() == [1001] and boxes[0, 0, :3].tolist() == [5, 6, 7]


def test_empty_and_nan_coordinates() -> None:
    nan = float("nan")
    empty_line = struct.pack("<BII", 1, 2, 0)
    b = GeospatialStatsBuilder()
    b.update(ByteArrays.from_pylist([_pt(nan, nan), empty_line]))
    r = b.result()
    assert r.bbox is None and r.geospatial_types == (1, 2)   # types known, no box
    b.update(ByteArrays.from_pylist([_pt(1, nan), _pt(nan, 5, nan, code=1001)]))
    r = b.result()
    assert (r.bbox.xmin, r.bbox.xmax, r.bbox.ymin, r.bbox.ymax) == (1, 1, 5, 5)
    assert r.bbox.zmin is None and r.geospatial_types == (1, 2, 1001)
    assert GeospatialStatsBuilder().result().geospatial_types == ()   # only nulls: "not known"


def test_nested_collection_and_polygon() -> None:
    ring = struct.pack("<I", 4) + struct.pack("<8d", 0, 0, 10, 0, 10, -3, 0, 0)
    poly = struct.pack("<BII", 1, 3, 1) + ring
    coll = struct.pack("<BII", 1, 7, 2) + poly + _pt(20, 30, le=False)
    boxes, codes = _bounds(coll, poly)
    assert codes.tolist() == [7, 3]
    assert boxes[0, 0, :2].tolist() == [0, -3] and boxes[0, 1, :2].tolist() == [20, 30]


@pytest.mark.parametrize("bad", [b"", b"\x02\x01\x00\x00\x00", _pt(1, 2)[:-1],
                                 struct.pack("<BI", 1, 9), struct.pack("<BII", 1, 2, 1000)])
def test_malformed_wkb(bad: bytes) -> None:
    with pytest.raises(pc.ParquetError):
        _bounds(_pt(0, 0, code=1001) + b"", bad)


def test_geography_range_and_box(tmp_path) -> None:
    schema = pc.schema([pc.field("g", pc.geography())])
    path = tmp_path / "g.parquet"
    pc.write_table({"g": [_pt(10, 20), None, _pt(-170, -5)]}, path, schema=schema)
    geo = pc.ParquetFile(path).metadata.row_group(0).column(0).geospatial_statistics
    assert geo.geospatial_types == (1,)
    # two points half a turn apart: either arc is smallest; the one not crossing 180 is kept
    assert (geo.bbox.xmin, geo.bbox.xmax, geo.bbox.ymin, geo.bbox.ymax) == (-170, 10, -5, 20)
    # ellipsoidal edges: no bounder, no box
    for algo in ("vincenty", "thomas", "andoyer", "karney"):
        p2 = tmp_path / f"{algo}.parquet"
        pc.write_table({"g": [_pt(10, 20)]}, p2, schema=pc.schema([pc.field("g", pc.geography(algorithm=algo))]))
        geo = pc.ParquetFile(p2).metadata.row_group(0).column(0).geospatial_statistics
        assert geo.bbox is None and geo.geospatial_types == (1,)
    with pytest.raises(ValueError):
        pc.write_table({"g": [_pt(200, 0)]}, tmp_path / "x.parquet", schema=schema)


def test_bbox_intersects_wraparound() -> None:
    # stored box wraps: x >= 170 or x <= -170
    assert bbox_intersects(170, -170, 0, 10, (175, 1, 176, 2))
    assert bbox_intersects(170, -170, 0, 10, (-179, 1, -175, 2))
    assert not bbox_intersects(170, -170, 0, 10, (0, 1, 10, 2))
    assert not bbox_intersects(170, -170, 0, 10, (175, 11, 176, 12))
    # query wraps
    assert bbox_intersects(-175, -172, 0, 10, (170, 0, -170, 10))
    assert not bbox_intersects(0, 10, 0, 10, (170, 0, -170, 10))


def _ls(pts: list[tuple[float, float]]) -> bytes:
    return struct.pack("<BII", 1, 2, len(pts)) + b"".join(struct.pack("<dd", *p) for p in pts)


def _pg(pts: list[tuple[float, float]]) -> bytes:
    return struct.pack("<BIII", 1, 3, 1, len(pts)) + b"".join(struct.pack("<dd", *p) for p in pts)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_coord = st.floats(allow_nan=True, allow_infinity=False, width=64)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(_coord, _coord), max_size=6), min_size=1, max_size=8), st.booleans())
def test_vectorised_lines_and_polygons_equal_the_walk(paths, polygons) -> None:
    """All-LineString / all-one-ring-Polygon pages take a vectorised parse, pinned to the walk."""
    from parquet_core.metadata.geospatial import _paths_fast, _wkb_bounds_walk

    vals = ByteArrays.from_pylist([(_pg if polygons else _ls)(p) for p in paths])
    fast = _paths_fast(vals)
    assert fast is not None
    slow = _wkb_bounds_walk(vals)
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])
    # one big-endian value sends the page to the walk
    assert _paths_fast(ByteArrays.from_pylist(vals.to_pylist() + [b"\x00" + _ls([])[1:]])) is None
