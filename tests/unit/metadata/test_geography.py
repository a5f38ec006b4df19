"""Spherical boxes of GEOGRAPHY columns (parquet_core.metadata.geography).

Oracles, none of them our own output:
* DataFusion's (S2) boxes stored in the corpus's ``geography-*.parquet``;
* points sampled densely along each great-circle arc by slerp, and inside
  spherical triangles by normalised positive combinations of the vertices,
  computed here from the vertices with plain trigonometry;
* the closed form of an arc's highest latitude between two points at the
  same latitude: ``tan(lat_max) = tan(lat) / cos(dlon / 2)``;
* pyarrow's reading of our files' statistics.
"""

from __future__ import annotations

import io
import math
import os
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core._kernels.binary import ByteArrays
from parquet_core.metadata.geography import (
    SphericalBoxBuilder, circular_cover, spherical_bounds, spherical_value_boxes,
)
from parquet_core.metadata.geospatial import bbox_intersects

DATA = os.environ.get("PARQUET_TEST_DATA", "")
NAMES = ["geography-points.parquet", "geography-lines.parquet", "geography-polygons.parquet"]
needs_corpus = pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "geospatial", NAMES[0])),
                                  reason="PARQUET_TEST_DATA/geospatial not available")


# -- WKB builders and an independent sampler --------------------------------------------------------

def _pt(x: float, y: float) -> bytes:
    return struct.pack("<BIdd", 1, 1, x, y)


def _line(pts: list[tuple[float, float]], be: bool = False) -> bytes:
    e = ">" if be else "<"
    return struct.pack(e + "BII", 0 if be else 1, 2, len(pts)) + b"".join(struct.pack(e + "dd", *p) for p in pts)


def _poly(*rings: list[tuple[float, float]]) -> bytes:
    out = struct.pack("<BII", 1, 3, len(rings))
    for r in rings:
        out += struct.pack("<I", len(r)) + b"".join(struct.pack("<dd", *p) for p in r)
    return out


def _multi(code: int, parts: list[bytes]) -> bytes:
    return struct.pack("<BII", 1, code, len(parts)) + b"".join(parts)


def _box(values: list[bytes]) -> tuple:
    b = SphericalBoxBuilder()
    b.add(spherical_bounds(ByteArrays.from_pylist(values)))
    return b.box()


def _xyz(lon: float, lat: float) -> np.ndarray:
    lo, la = math.radians(lon), math.radians(lat)
    return np.array([math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la)])


def _lonlat(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = v / np.linalg.norm(v, axis=-1, keepdims=True)
    # atan2 for the latitude: arcsin loses digits near the poles
    return (np.degrees(np.arctan2(v[..., 1], v[..., 0])),
            np.degrees(np.arctan2(v[..., 2], np.hypot(v[..., 0], v[..., 1]))))


def _slerp(a: tuple[float, float], b: tuple[float, float], k: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """``k`` points along the shorter great-circle arc from a to b (end points included)."""
    A, B = _xyz(*a), _xyz(*b)
    om = math.acos(max(-1.0, min(1.0, float(A @ B))))
    if om < 1e-12:
        return np.array([a[0]]), np.array([a[1]])
    t = np.linspace(0, 1, k)[:, None]
    pts = (np.sin((1 - t) * om) * A + np.sin(t * om) * B) / math.sin(om)
    return _lonlat(pts)


def _inside(box: tuple, lon: np.ndarray, lat: np.ndarray, eps: float = 1e-10) -> np.ndarray:
    xmin, xmax, ymin, ymax = box[:4]
    y_ok = (lat >= ymin - eps) & (lat <= ymax + eps)
    # -180 and 180 are one meridian
    lon2 = np.where(lon <= -180 + eps, 180.0, np.where(lon >= 180 - eps, -180.0, lon))
    if xmin <= xmax:
        x_ok = ((lon >= xmin - eps) & (lon <= xmax + eps)) | ((lon2 >= xmin - eps) & (lon2 <= xmax + eps))
    else:
        x_ok = (lon >= xmin - eps) | (lon <= xmax + eps) | (lon2 >= xmin - eps) | (lon2 <= xmax + eps)
    # at a pole every longitude is the same point
    return y_ok & (x_ok | (np.abs(lat) >= 90 - 1e-9))


def _edge_samples(paths: list[list[tuple[float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    lons, lats = [], []
    for p in paths:
        for a, b in zip(p[:-1], p[1:]):
            lo, la = _slerp(a, b)
            lons.append(lo)
            lats.append(la)
        if len(p) == 1:
            lons.append(np.array([p[0][0]]))
            lats.append(np.array([p[0][1]]))
    return np.concatenate(lons), np.concatenate(lats)


def _parse_paths(wkb: bytes) -> list[list[tuple[float, float]]]:
    """Plain struct walk of 2D LE/BE WKB into its paths (test-side, independent of the module)."""
    out: list[list[tuple[float, float]]] = []

    def walk(pos: int) -> int:
        e = "<" if wkb[pos] == 1 else ">"
        code = struct.unpack_from(e + "I", wkb, pos + 1)[0]
        pos += 5
        if code == 1:
            out.append([struct.unpack_from(e + "dd", wkb, pos)])
            return pos + 16
        n = struct.unpack_from(e + "I", wkb, pos)[0]
        pos += 4
        if code == 2:
            out.append([struct.unpack_from(e + "dd", wkb, pos + 16 * i) for i in range(n)])
            return pos + 16 * n
        if code == 3:
            for _ in range(n):
                m = struct.unpack_from(e + "I", wkb, pos)[0]
                out.append([struct.unpack_from(e + "dd", wkb, pos + 4 + 16 * i) for i in range(m)])
                pos += 4 + 16 * m
            return pos
        for _ in range(n):
            pos = walk(pos)
        return pos

    walk(0)
    return out


# -- 1. the corpus: DataFusion's S2 boxes -----------------------------------------------------------

def _arc(b0: float, b1: float) -> tuple[float, float]:
    """(start, length) of a longitude range; xmin > xmax wraps."""
    if b0 == -180 and b1 == 180:
        return -180.0, 360.0
    return b0, (b1 - b0) % 360.0


def _growth(ours: tuple, theirs: tuple) -> tuple[float, float, float, float]:
    """How far each of our bounds lies outside theirs (negative: inside), west/east/south/north."""
    (a0, la), (b0, lb) = _arc(ours[0], ours[1]), _arc(theirs[0], theirs[1])
    if la >= 360:
        west = east = 0.0 if lb >= 360 else (360 - lb) / 2
    else:
        off = (b0 - a0 + 180) % 360 - 180          # their start east of ours (negative: west of)
        west, east = off, la - (off + lb)
    return west, east, theirs[2] - ours[2], ours[3] - theirs[3]


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_corpus_boxes_contain_s2_boxes(name: str) -> None:
    """Each row group's box from its values holds the stored S2 box within 1e-9 degrees and
    is at most 1e-6 degrees larger, except where S2 is narrower than the geometry allows."""
    import pyarrow.parquet as pq

    f = pq.ParquetFile(os.path.join(DATA, "geospatial", name))
    worst = np.full(4, -np.inf)
    for rg in range(f.metadata.num_row_groups):
        s = f.metadata.row_group(rg).column(1).geo_statistics
        vals = [v for v in f.read_row_group(rg).column("geometry").to_pylist() if v is not None]
        ours = _box(vals)
        theirs = (s.xmin, s.xmax, s.ymin, s.ymax)
        paths = [p for v in vals for p in _parse_paths(v)]
        lon, lat = _edge_samples(paths)
        assert np.all(_inside(ours, lon, lat)), (rg, ours)          # every sampled point inside
        pole = bool(np.any(np.abs(lat) >= 90))
        if name == "geography-polygons.parquet" and rg == 28:
            # S2 stored [-180, 180] x [-44.5, 90] for ten small diamonds, none above 7S and none
            # round a pole (their samples are all inside our box, checked above): S2 is wider
            assert theirs[3] == 90 and ours[3] < -7
            continue
        g = np.array(_growth(ours, theirs))
        assert np.all(g >= -1e-9), (rg, ours, theirs, g)              # ours holds theirs
        if pole:
            # a pole vertex: every meridian meets it, so we cover all longitudes; S2 keeps the
            # vertex's own longitude for a lone point (points file, rgs 20 and 45)
            assert ours[0] == -180 and ours[1] == 180
            g[:2] = -np.inf
        assert np.all(g <= 1e-6), (rg, ours, theirs, g)               # and is barely larger
        worst = np.maximum(worst, g)
    print(f"{name}: max growth west/east/south/north = {worst}")


# -- 2. random arcs, lines and triangles ------------------------------------------------------------

lon_st = st.floats(-180, 180, allow_nan=False)
lat_st = st.floats(-90, 90, allow_nan=False)
vertex = st.tuples(lon_st, lat_st)
near_pole = st.tuples(lon_st, st.floats(80, 90) | st.floats(-90, -80))


def _not_antipodal(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return float(_xyz(*a) @ _xyz(*b)) > -1 + 1e-9


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(vertex | near_pole, min_size=2, max_size=5), min_size=1, max_size=4))
def test_random_lines_inside_box(lines: list[list[tuple[float, float]]]) -> None:
    lines = [ln for ln in lines if all(_not_antipodal(a, b) for a, b in zip(ln[:-1], ln[1:]))]
    if not lines:
        return
    box = _box([_line(ln) for ln in lines])
    lon, lat = _edge_samples(lines)
    bad = ~_inside(box, lon, lat)
    assert not bad.any(), (box, lon[bad][:3], lat[bad][:3])


def _triangle_interior(tri: list[tuple[float, float]], k: int = 300) -> tuple[np.ndarray, np.ndarray]:
    V = np.array([_xyz(*p) for p in tri])
    w = np.random.default_rng(0).dirichlet([1, 1, 1], size=k)
    return _lonlat(w @ V)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(vertex | near_pole, min_size=3, max_size=3))
def test_random_triangles_inside_box(tri: list[tuple[float, float]]) -> None:
    V = np.array([_xyz(*p) for p in tri])
    with np.errstate(all="ignore"):
        det = np.linalg.det(V)
    if not abs(det) >= 1e-6 or not all(_not_antipodal(a, b) for a, b in zip(tri, tri[1:] + tri[:1])):
        return      # (nearly) on one great circle: no well-defined smaller side
    box = _box([_poly(tri + tri[:1])])
    lon, lat = _edge_samples([tri + tri[:1]])
    ilon, ilat = _triangle_interior(tri)
    lon, lat = np.concatenate([lon, ilon]), np.concatenate([lat, ilat])
    # the pole itself, when the triangle holds it (the cone of the vertices contains +-z)
    for z in (1.0, -1.0):
        c = np.linalg.solve(V.T, np.array([0, 0, z]))
        if np.all(c > 0):
            lon, lat = np.append(lon, 0.0), np.append(lat, 90.0 * z)
            assert box[0] == -180 and box[1] == 180 and box[3 if z > 0 else 2] == 90 * z
    bad = ~_inside(box, lon, lat)
    assert not bad.any(), (tri, box, lon[bad][:3], lat[bad][:3])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(lon_st, st.floats(0, 179.9)), min_size=1, max_size=12))
def test_circular_cover_is_smallest(arcs: list[tuple[float, float]]) -> None:
    """Against a brute force: the best arc starts at one of the intervals' starts."""
    starts = np.array([a for a, _ in arcs])
    raw = starts + np.array([w for _, w in arcs])
    ends = np.where(raw > 180, raw - 360, raw)
    from parquet_core.metadata.geography import _merge, _split
    s, e = _split(starts, ends)
    xmin, xmax = circular_cover(*_merge(s, e))
    length = 360.0 if (xmin, xmax) == (-180.0, 180.0) else (xmax - xmin) % 360
    for a, w in arcs:                       # covers each arc
        assert ((a - xmin) % 360) + w <= length + 1e-9 or length >= 360
    # no candidate arc starting at an arc's start is shorter while covering all
    best = 360.0
    for c in starts:
        need = max(((a - c) % 360) + w for a, w in arcs)
        best = min(best, need)
    assert length <= best + 1e-9


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(vertex | near_pole | st.tuples(st.sampled_from([0.0, -10.0, 180.0, -180.0]), lat_st),
                         min_size=1, max_size=4), min_size=1, max_size=5), st.booleans())
def test_value_boxes_hold_each_value(lines: list[list[tuple[float, float]]], be: bool) -> None:
    """Per-value boxes (for row filtering): every sampled point of a value lies in its own box."""
    lines = [ln for ln in lines if all(_not_antipodal(a, b) for a, b in zip(ln[:-1], ln[1:]))]
    if not lines:
        return
    vals = [_line(ln, be=be) for ln in lines] + [struct.pack("<BII", 1, 2, 0)]
    boxes = spherical_value_boxes(ByteArrays.from_pylist(vals))
    assert np.all(np.isnan(boxes[-1]))
    for ln, box in zip(lines, boxes):
        lon, lat = _edge_samples([ln])
        bad = ~_inside(tuple(box), lon, lat)
        assert not bad.any(), (ln, box, lon[bad][:3], lat[bad][:3])
        # and never larger than needed on a simple case: one edge not near a pole
        if len(ln) == 2 and max(abs(ln[0][1]), abs(ln[1][1])) < 80 and ln[0] != ln[1]:
            d = abs((ln[1][0] - ln[0][0] + 180) % 360 - 180)
            width = 360.0 if (box[0], box[1]) == (-180.0, 180.0) else (box[1] - box[0]) % 360
            if d < 179:     # (half a turn: over a pole or not unique, widened on purpose)
                assert width <= d + 1e-9


def test_value_boxes_poles_and_wrap() -> None:
    vals = [_line([(170, 10), (-170, 10)]), _poly([(lon, 80.0) for lon in (0, 90, 180, -90, 0)]), _pt(5, 6),
            _line([(-10, 0), (0, 0)])]
    b = spherical_value_boxes(ByteArrays.from_pylist(vals))
    assert b[0][0] == 170 and b[0][1] == -170 and b[0][3] > 10
    assert tuple(b[1]) == (-180, 180, 80, 90)
    assert tuple(b[2]) == (5, 5, 6, 6)
    assert tuple(b[3][:2]) == (-10, 0)


# -- 3. antimeridian, bulge, poles ------------------------------------------------------------------

def test_antimeridian_line_wraps_and_bulges() -> None:
    box = _box([_line([(170, 10), (-170, 10)])])
    assert box[0] == 170 and box[1] == -170
    exact = math.degrees(math.atan(math.tan(math.radians(10)) / math.cos(math.radians(10))))
    assert exact <= box[3] <= exact + 1e-9 and box[2] == 10


def test_bulge_matches_closed_form() -> None:
    box = _box([_line([(0, 60), (90, 60)]), _line([(0, -60), (90, -60)], be=True)])
    exact = math.degrees(math.atan(math.tan(math.radians(60)) / math.cos(math.radians(45))))
    assert exact <= box[3] <= exact + 1e-9 and -exact - 1e-9 <= box[2] <= -exact
    assert (box[0], box[1]) == (0, 90)


def test_ring_round_north_pole() -> None:
    ring = [(lon, 80.0) for lon in (0, 90, 180, -90, 0)]
    assert _box([_poly(ring)])[:4] == (-180, 180, 80, 90)
    # the same ring walked the other way: still the smaller side
    assert _box([_poly(ring[::-1])])[:4] == (-180, 180, 80, 90)
    south = [(lon, -70.0) for lon in (0, -120, 120, 0)]
    assert _box([_poly(south)])[:4] == (-180, 180, -90, -70)


def test_antarctica_style_ring_with_pole_vertices() -> None:
    ring = [(-180, -80), (-90, -70), (0, -75), (90, -70), (180, -80), (180, -90), (-180, -90), (-180, -80)]
    box = _box([_poly(ring)])
    assert box[0] == -180 and box[1] == 180 and box[2] == -90 and box[3] == -70   # southern arcs bulge south


def test_points_at_pole_cover_all_longitudes() -> None:
    assert _box([_pt(10, 90), _pt(20, 80)])[:4] == (-180, 180, 80, 90)


def test_edge_over_pole_and_antipodal() -> None:
    box = _box([_line([(10, 80), (-170, 80)])])         # along a meridian over the north pole
    assert box[:4] == (-180, 180, 80, 90)
    box = _box([_line([(0, 0), (180, 0)])])             # antipodal: the arc is not unique
    assert box[:4] == (-180, 180, -90, 90)


def test_multi_and_collection_and_empty() -> None:
    mp = _multi(4, [_pt(170, 1), _pt(-175, 2)])
    gc = _multi(7, [_line([(0, 0), (1, 1)]), _multi(6, [_poly([(5, 5), (6, 5), (6, 6), (5, 5)])])])
    empty = struct.pack("<BII", 1, 2, 0)
    b = spherical_bounds(ByteArrays.from_pylist([mp, gc, empty]))
    assert sorted(set(b.codes.tolist())) == [2, 4, 7]
    box = _box([mp, gc, empty])
    # the points at 170 and -175 and the lines near 0: the smallest arc avoids the big gap
    assert box[0] == 0 and box[1] == -175
    assert _box([empty]) is None


def test_z_m_and_nan() -> None:
    z = struct.pack("<BIIddd", 1, 1002, 1, 1.0, 2.0, 7.0)        # LINESTRING Z of one point
    m = struct.pack("<BIIdddd", 1, 3002, 1, 3.0, 4.0, 8.0, -2.0)  # LINESTRING ZM
    nan = _pt(float("nan"), float("nan"))
    box = _box([z, m, nan])
    assert box == (1.0, 3.0, 2.0, 4.0, 7.0, 8.0, -2.0, -2.0)


@pytest.mark.parametrize("bad", [b"\x01\x02\x00\x00\x00\xff\xff\xff\x7f", b"\x05", b"\x01\x03\x00\x00\x00"])
def test_malformed(bad: bytes) -> None:
    with pytest.raises(pc.ParquetError):
        spherical_bounds(ByteArrays.from_pylist([bad]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(vertex, min_size=0, max_size=5), min_size=1, max_size=6), st.integers(1, 3))
def test_fast_path_equals_walk(paths: list[list[tuple[float, float]]], kind: int) -> None:
    """All-points / all-lines / all-one-ring values take a vectorised parse; pinned to the walk."""
    if kind == 1:
        vals = [_pt(*p[0]) for p in paths if p]
    elif kind == 2:
        vals = [_line(p) for p in paths]
    else:
        vals = [_poly(p + p[:1]) for p in paths if p]
    if not vals:
        return
    fast = spherical_bounds(ByteArrays.from_pylist(vals))
    # a big-endian copy of one value forces the general walk
    be = [_line([(0.0, 0.0)], be=True)]
    slow = spherical_bounds(ByteArrays.from_pylist(vals + be))
    b1, b2 = SphericalBoxBuilder(), SphericalBoxBuilder()
    b1.add(fast)
    b1.add(spherical_bounds(ByteArrays.from_pylist(be)))
    b2.add(slow)
    assert b1.box() == b2.box()


# -- 4. pyarrow reads our boxes; 5. pruning --------------------------------------------------------

def _write(values_by_rg: list[list[bytes | None]], **kw) -> io.BytesIO:
    buf = io.BytesIO()
    flat = [v for rg in values_by_rg for v in rg]
    size = len(values_by_rg[0])
    pc.write_table({"g": flat}, buf, schema=pc.schema([pc.field("g", pc.geography(**kw))]), row_group_size=size)
    buf.seek(0)
    return buf


GROUPS = [
    [_line([(170, 10), (-170, 10)]), None],               # across the antimeridian
    [_line([(0, 60), (90, 60)]), _pt(45, 0)],             # bulges north to ~67.8
    [_poly([(lon, 80.0) for lon in (0, 90, 180, -90, 0)]), None],   # round the north pole
]


def test_pyarrow_reads_our_boxes() -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    buf = _write(GROUPS)
    meta = pq.ParquetFile(buf).metadata
    want = [_box([v for v in g if v is not None]) for g in GROUPS]
    for rg, w in enumerate(want):
        s = meta.row_group(rg).column(0).geo_statistics
        assert (s.xmin, s.xmax, s.ymin, s.ymax) == w[:4]
        assert s.geospatial_types == ([2] if rg == 0 else [1, 2] if rg == 1 else [3])
    assert meta.row_group(0).column(0).geo_statistics.xmin > meta.row_group(0).column(0).geo_statistics.xmax


@pytest.mark.parametrize("query, kept", [
    ((175, 0, 179, 20), [0]),             # the wrapped box
    ((-179, 5, -175, 9), []),             # south of the antimeridian line's vertices
    ((-10, 0, 10, 5), [1]),
    ((40, 66, 50, 67), [1]),              # only the bulge reaches here; vertices stop at 60
    ((100, 85, 110, 88), [2]),
    ((170, 0, -170, 8), []),              # a wrapping query, below the line
    ((170, 10.1, -170, 11), [0]),         # a wrapping query meets the wrapped box's bulge
    ((-120, 89, -110, 90), [2]),          # the polar cap covers every longitude
])
def test_intersects_prunes_on_spherical_boxes(query, kept) -> None:
    buf = _write(GROUPS)
    report = pc.ParquetFile(buf).explain(pc.col("g").intersects(query))
    assert report.kept == kept, report
    # pruning is sound: the boxes pyarrow reads say the same
    pq = pytest.importorskip("pyarrow.parquet")
    buf.seek(0)
    meta = pq.ParquetFile(buf).metadata
    want = [rg for rg in range(meta.num_row_groups)
            if bbox_intersects(*(getattr(meta.row_group(rg).column(0).geo_statistics, k)
                                 for k in ("xmin", "xmax", "ymin", "ymax")), query)]
    assert want == kept


def test_many_pages_of_scattered_points_keep_the_exact_box() -> None:
    """The chunk keeps a bounded interval list between pages; the box stays the smallest."""
    rng = np.random.default_rng(7)
    b = SphericalBoxBuilder()
    xs = []
    for _ in range(20):
        x = np.concatenate([rng.uniform(-180, 100, 300), rng.uniform(130, 180, 100)])
        xs.append(x)
        b.add(spherical_bounds(ByteArrays.from_pylist([_pt(v, 0.0) for v in x])))
    assert len(b._s) <= 1024
    allx = np.sort(np.concatenate(xs))
    gaps = np.diff(allx)
    i = int(np.argmax(gaps))           # the gap 100..130 is the largest: a wrapping box
    box = b.box()
    assert (box[0], box[1]) == (allx[i + 1], allx[i])
