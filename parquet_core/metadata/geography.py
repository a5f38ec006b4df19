"""Spherical bounding boxes of GEOGRAPHY values (edges interpolated as great circles).

A GEOGRAPHY value's edges are geodesics; with the ``SPHERICAL`` algorithm
(the default) they are great-circle arcs, the shorter way between their
end points.  The box of the vertices is not a bound of such a value:

* an arc bulges toward a pole: between two points at 60N, 90 degrees of
  longitude apart, it reaches about 67.8N;
* an arc may cross the antimeridian (170E to 170W goes through 180, not
  through 0), so the chunk's X range may wrap (``xmin > xmax``);
* a polygon ring may encircle a pole, which then lies inside the polygon.

The box here is built from unit vectors, vectorised over every edge of a
page::

    A, B     unit vectors of an edge's end points
    n        = A x B, normal of the edge's great circle
    top      the circle's most northern point; latitude = acos(|n_z| / |n|)
    on arc   (n x A)_z > 0 and (B x n)_z > 0   (same signs < 0: the most
             southern point -top is on the arc)

Longitude: an arc shorter than a half circle sweeps longitude monotonically,
by less than 180 degrees, so it covers exactly the shorter longitude interval
between its end points.  The chunk's X range is the smallest circular
interval holding every vertex and every edge's interval: the complement of
the largest gap between them, which wraps when that gap does not contain
the antimeridian.

Rings: the longitude deltas of a ring that goes round a pole add up to +-360.
Such a ring splits the sphere into two sides, one with each pole; the
polygon is taken to be the *smaller* side (WKB has no orientation rule for
the sphere; S2's default import does the same), found from the signed area
of the triangles (pole, A, B) over the ring's edges.  A ring that does not
go round a pole normally bounds a region without either pole, unless that
region is more than a hemisphere (then both poles are inside: full box).

Conservative choices (the box must hold every point of every value; a
reader prunes on it):

* latitude extremes inside an edge get a padding of the floating error of
  the normal's direction (``~1e-15 / |n|`` radians) plus ``1e-12`` degrees
  relative, capped by the certain bound ``max(end latitudes) + length / 2``;
* a vertex at a pole, an edge whose longitude delta is within ``1e-9`` of 180
  (it passes over a pole, or its end points are antipodal: the arc is not
  unique), or a pole inside a polygon makes X the full [-180, 180]: every
  meridian meets the pole;
* rings with such an edge, or touching both poles, count as holding both;
* a vertex with a NaN coordinate ends the edges on either side of it (a
  ring with one is bounded by the edges it still has).

Other algorithms (VINCENTY, THOMAS, ANDOYER, KARNEY) interpolate on the
ellipsoid; this module does not bound them and the writer stores no box
for them (only the type codes).

Z and M are plain minima and maxima, as for GEOMETRY.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetFormatError, add_context
from parquet_core.metadata import wkb

__all__ = ["SphericalBounds", "spherical_bounds", "spherical_value_boxes", "SphericalBoxBuilder",
           "circular_cover"]

_F = npt.NDArray[np.float64]

#: longitude delta this close to 180 degrees: the arc's side is not certain
_HALF_TURN_TOL = 1e-9
#: relative padding of latitude extremes found inside edges (degrees)
_PAD_REL = 1e-12


@dataclass
class SphericalBounds:
    """Bounds of one page of values, before merging.

    ``lon_starts``/``lon_ends``: disjoint sorted longitude intervals within
    [-180, 180] that the values cover; ``lat``, ``z``, ``m``: ``[lo, hi]``
    (``inf``/``-inf`` when nothing was seen); ``north``/``south``: the pole
    is inside some value; ``full_lon``: every longitude is covered.
    """

    lon_starts: _F
    lon_ends: _F
    lat: _F
    z: _F
    m: _F
    north: bool
    south: bool
    full_lon: bool
    codes: npt.NDArray[np.int32]
    #: per-axis minima and maxima of the vertices (x, y, z, m; NaN-skipping), for range checks
    vertex_lo: _F
    vertex_hi: _F
    #: latitude range of the vertices and of the arcs between them, before any pole is added
    #: (what every writer's spherical box must hold, whatever it decides about polygon sides)
    arc_lat: _F


# -- WKB walk ---------------------------------------------------------------------------------------

#: path kinds: loose points (no edges), a line (edges between neighbours), a ring (closed)
_POINTS, _LINE, _RING = 0, 1, 2


def _walk(buf: bytes, pos: int, parts: list[tuple[_F, int]], depth: int) -> tuple[int, int]:
    """Append ``(coords, kind)`` of every path of one geometry; return ``(iso, next_pos)``."""
    if depth > wkb.MAX_DEPTH:
        raise ParquetFormatError(f"WKB nested deeper than {wkb.MAX_DEPTH} levels")
    end, base, has_z, has_m, pos = wkb.header(buf, pos)
    iso = base + 1000 * (has_z + 2 * has_m)
    if base == 1:
        pts, pos = wkb.coords_xyzm(buf, pos, 1, has_z, has_m, end)
        parts.append((pts, _POINTS))
    elif base == 2:
        n, pos = wkb.count(buf, pos, end)
        pts, pos = wkb.coords_xyzm(buf, pos, n, has_z, has_m, end)
        parts.append((pts, _LINE))
    elif base == 3:
        rings, pos = wkb.count(buf, pos, end)
        if rings > len(buf):
            raise ParquetFormatError(f"WKB polygon claims {rings} rings in {len(buf)} bytes")
        for _ in range(rings):   # one header per ring: sequential by format
            n, pos = wkb.count(buf, pos, end)
            pts, pos = wkb.coords_xyzm(buf, pos, n, has_z, has_m, end)
            parts.append((pts, _RING))
    else:
        count, pos = wkb.count(buf, pos, end)
        if count > len(buf):
            raise ParquetFormatError(f"WKB collection claims {count} parts in {len(buf)} bytes")
        for _ in range(count):
            _, pos = _walk(buf, pos, parts, depth + 1)
    return iso, pos


def _simple_fast(values: ByteArrays) -> tuple[_F, npt.NDArray[np.int64], int, int] | None:
    """Vectorised parse when every value is a little-endian 2D point, or every value a
    little-endian 2D LineString, or every value a one-ring little-endian 2D Polygon.

    Returns ``(xy coords (N, 2), path lengths, kind, iso)`` or None.
    """
    n = len(values)
    if n == 0:
        return None
    offsets = np.asarray(values.offsets, dtype=np.int64)
    starts, lengths = offsets[:-1], np.diff(offsets)
    data = np.ascontiguousarray(values.data, dtype=np.uint8)
    if int(lengths.min()) < 9 or int(offsets[-1]) > len(data):
        return None
    head = data[starts[:, None] + np.arange(9)]
    if not np.all(head[:, 0] == 1):
        return None
    code = head[:, 1:5].copy().view("<u4")[:, 0]
    first = int(code[0])
    if not np.all(code == first):
        return None
    if first == 1:
        if not np.all(lengths == 21):
            return None
        counts = np.ones(n, dtype=np.int64)
        body = 5
    elif first == 2:
        counts = head[:, 5:9].copy().view("<u4")[:, 0].astype(np.int64)
        body = 9
    elif first == 3:
        if int(lengths.min()) < 13:
            return None
        rings = head[:, 5:9].copy().view("<u4")[:, 0]
        if not np.all(rings == 1):
            return None
        cnt = data[starts[:, None] + np.arange(9, 13)]
        counts = cnt.copy().view("<u4")[:, 0].astype(np.int64)
        body = 13
    else:
        return None
    if not np.array_equal(lengths, body + 16 * counts):
        return None
    total = int(counts.sum())
    # gather every coordinate's 8 bytes: value start + body + 8 * k, through a 1-byte-stride
    # window view (lengths were checked against the counts above, so every read is inside)
    doubles = 2 * counts
    base = np.repeat(starts + body - 8 * (np.cumsum(doubles) - doubles), doubles)
    pos = base + 8 * np.arange(2 * total, dtype=np.int64)
    if total:
        windows = np.lib.stride_tricks.as_strided(data, shape=(len(data) - 7, 8), strides=(1, 1))
        xy = windows[pos].reshape(-1).view("<f8").reshape(total, 2)
    else:
        xy = np.empty((0, 2))
    kind = {1: _POINTS, 2: _LINE, 3: _RING}[first]
    return xy, counts, kind, first


# -- spherical pieces -------------------------------------------------------------------------------

def _unit(lon_deg: _F, lat_deg: _F) -> _F:
    lon, lat = np.radians(lon_deg), np.radians(lat_deg)
    c = np.cos(lat)
    return np.stack([c * np.cos(lon), c * np.sin(lon), np.sin(lat)], axis=-1)


def _merge(starts: _F, ends: _F) -> tuple[_F, _F]:
    """Union of intervals ``[starts, ends]`` on a line: disjoint, sorted."""
    if len(starts) == 0:
        return starts, ends
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(s) - 1)
    return s[first], reach[last]


def _split(lo: _F, hi: _F) -> tuple[_F, _F]:
    """Intervals from ``lo`` east to ``hi`` (``hi < lo``: across the antimeridian), as line pieces."""
    wrap = hi < lo
    s = np.concatenate([lo, np.full(int(wrap.sum()), -180.0)])
    e = np.concatenate([np.where(wrap, 180.0, hi), hi[wrap]])
    return s, e


def circular_cover(starts: _F, ends: _F) -> tuple[float, float]:
    """Smallest arc holding the disjoint sorted intervals of [-180, 180]: ``(xmin, xmax)``.

    ``xmin > xmax`` when the arc crosses the antimeridian; ``(-180, 180)``
    when nothing is left out.  -180 and 180 are the same meridian.
    """
    if len(starts) == 0:
        return -180.0, 180.0
    inner = starts[1:] - ends[:-1]
    wrap_gap = (starts[0] + 180.0) + (180.0 - ends[-1])
    best = int(np.argmax(inner)) if len(inner) else -1
    if best < 0 or wrap_gap >= inner[best]:
        if wrap_gap <= 0:
            return -180.0, 180.0
        return float(starts[0]), float(ends[-1])
    if inner[best] <= 0:
        return -180.0, 180.0
    return float(starts[best + 1]), float(ends[best])


@dataclass
class _Edges:
    """Per-edge facts of the edges ``ia -> ia + 1`` of a page (see the module docstring)."""

    ia: npt.NDArray[np.int64]
    d: _F                           # longitude delta, the shorter way, in [-180, 180)
    half: npt.NDArray[np.bool_]     # |d| within tolerance of 180: over a pole, or antipodal
    west: _F                        # longitude interval [west, east] swept (east < west: wraps)
    east: _F
    moving: npt.NDArray[np.bool_]   # the edge sweeps some longitude (not half, d != 0)
    hi: _F                          # padded latitude maximum inside the edge (NaN: at an end)
    lo: _F                          # padded latitude minimum inside the edge (NaN: at an end)
    A: _F
    B: _F


def _edges(lon: _F, lat: _F, ia: npt.NDArray[np.int64]) -> _Edges:
    ib = ia + 1
    la, lb, pa, pb = lon[ia], lon[ib], lat[ia], lat[ib]
    d = (lb - la + 180.0) % 360.0 - 180.0
    half = np.abs(d) >= 180.0 - _HALF_TURN_TOL
    # longitude: from the western end east to the other; exact end points, no rounding
    east = d >= 0
    moving = (d != 0) & ~half
    w_end = np.where(east, la, lb)
    e_end = np.where(east, lb, la)
    A, B = _unit(la, pa), _unit(lb, pb)
    n = np.cross(A + B, B - A) * 0.5           # = A x B, more accurate for close A, B
    nn = np.sqrt(np.einsum("ij,ij->i", n, n))
    hi = np.full(len(ia), np.nan)
    lo = np.full(len(ia), np.nan)
    live = nn > 1e-300
    if np.any(live):
        n_, A_, B_, nn_ = n[live], A[live], B[live], nn[live]
        t1 = n_[:, 0] * A_[:, 1] - n_[:, 1] * A_[:, 0]       # (n x A)_z
        t2 = B_[:, 0] * n_[:, 1] - B_[:, 1] * n_[:, 0]       # (B x n)_z
        tol = 1e-12 * nn_
        top = np.arctan2(np.hypot(n_[:, 0], n_[:, 1]), np.abs(n_[:, 2]))   # radians
        length = np.arctan2(nn_, np.einsum("ij,ij->i", A_, B_))
        err = 2e-15 / nn_ + 2e-15
        reach = 0.5 * length * (1 + 1e-9) + 1e-15
        up = (t1 > -tol) & (t2 > -tol)
        down = (t1 < tol) & (t2 < tol)
        top_hi = np.minimum(top + err, np.radians(np.maximum(pa[live], pb[live])) + reach)
        top_lo = np.maximum(-top - err, np.radians(np.minimum(pa[live], pb[live])) - reach)
        v_hi = np.degrees(top_hi)
        v_lo = np.degrees(top_lo)
        v_hi = np.minimum(90.0, v_hi + _PAD_REL * np.maximum(1.0, np.abs(v_hi)))
        v_lo = np.maximum(-90.0, v_lo - _PAD_REL * np.maximum(1.0, np.abs(v_lo)))
        hi[live] = np.where(up, v_hi, np.nan)
        lo[live] = np.where(down, v_lo, np.nan)
    return _Edges(ia, d, half, w_end, e_end, moving, hi, lo, A, B)


def _edge_starts(lengths: npt.NDArray[np.int64], kinds: npt.NDArray[np.int8],
                 ok: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(path id of every vertex, indices i with an edge i -> i + 1)``: same line or ring,
    both ends known."""
    path_id = np.repeat(np.arange(len(lengths)), lengths)
    total = len(path_id)
    if total < 2:
        return path_id, np.empty(0, dtype=np.int64)
    has_edges = np.repeat(kinds != _POINTS, lengths)
    e_ok = (path_id[:-1] == path_id[1:]) & has_edges[:-1] & ok[:-1] & ok[1:]
    return path_id, np.flatnonzero(e_ok)


def _bound_paths(xyzm: _F, lengths: npt.NDArray[np.int64], kinds: npt.NDArray[np.int8],
                 codes: npt.NDArray[np.int32]) -> SphericalBounds:
    """Bounds of paths stored back to back in ``xyzm`` (one kind per path)."""
    lon, lat = xyzm[:, 0], xyzm[:, 1]
    ok = np.isfinite(lon) & np.isfinite(lat)

    def span(v: _F) -> _F:
        return np.array([np.fmin.reduce(v, initial=np.inf), np.fmax.reduce(v, initial=-np.inf)])

    lat_lo = float(np.min(lat[ok], initial=np.inf))
    lat_hi = float(np.max(lat[ok], initial=-np.inf))
    full_lon = bool(np.any(np.abs(lat[ok]) >= 90.0))      # a pole vertex: every meridian
    north = south = False
    pieces_s: list[_F] = []
    pieces_e: list[_F] = []
    lone = ok.copy()           # vertices that are no end of a longitude-sweeping edge
    path_id, ia = _edge_starts(lengths, kinds, ok)
    if len(ia):
        ed = _edges(lon, lat, ia)
        s, e = _split(ed.west[ed.moving], ed.east[ed.moving])
        pieces_s.append(s)
        pieces_e.append(e)
        sweep = ia[ed.moving]
        lone[sweep] = False         # [west, east] are exactly the end points' longitudes
        lone[sweep + 1] = False
        if np.any(ed.half):
            full_lon = True
            psum = lat[ia][ed.half] + lat[ia + 1][ed.half]
            north = bool(np.any(psum > -_HALF_TURN_TOL))
            south = bool(np.any(psum < _HALF_TURN_TOL))
        lat_hi = max(lat_hi, float(np.fmax.reduce(ed.hi, initial=-np.inf)))
        lat_lo = min(lat_lo, float(np.fmin.reduce(ed.lo, initial=np.inf)))
        ring_edge = kinds[path_id[ia]] == _RING
        if np.any(ring_edge):
            _, rn, rs = _ring_poles(path_id[ia][ring_edge], ed, ring_edge, lat[ia], lat[ia + 1])
            north, south = north or bool(rn.any()), south or bool(rs.any())
    arc_lat = np.array([lat_lo, lat_hi])
    if north:
        lat_hi = 90.0
    if south:
        lat_lo = -90.0
    if north or south:
        full_lon = True
    pieces_s.append(lon[lone])
    pieces_e.append(lon[lone])
    ls, le = _merge(np.concatenate(pieces_s), np.concatenate(pieces_e))
    vlo = np.fmin.reduce(xyzm, axis=0, initial=np.inf)
    vhi = np.fmax.reduce(xyzm, axis=0, initial=-np.inf)
    return SphericalBounds(ls, le, np.array([lat_lo, lat_hi]), span(xyzm[:, 2]), span(xyzm[:, 3]),
                           north, south, full_lon, codes, vlo, vhi, arc_lat)


def _ring_poles(ring: npt.NDArray[np.int64], ed: _Edges, sel: npt.NDArray[np.bool_], lat_a: _F,
                lat_b: _F) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which rings' smaller side holds the north / the south pole.

    ``ring`` numbers the selected (``sel``) edges' rings.  Returns
    ``(ring ids, north, south)``, one entry per ring.
    """
    d, half, A, B = ed.d[sel], ed.half[sel], ed.A[sel], ed.B[sel]
    pa, pb = lat_a[sel], lat_b[sel]
    ids, inv = np.unique(ring, return_inverse=True)
    k = len(ids)

    def per_ring(w: npt.NDArray[np.float64] | npt.NDArray[np.bool_]) -> _F:
        # (float64 already, with weights: the stubs declare bincount's integer result only)
        return np.bincount(inv, weights=np.asarray(w, dtype=np.float64), minlength=k).astype(np.float64, copy=False)

    wind = per_ring(d)
    odd = per_ring(half) > 0
    touch_n = per_ring((pa >= 90.0) | (pb >= 90.0)) > 0
    touch_s = per_ring((pa <= -90.0) | (pb <= -90.0)) > 0
    cz = A[:, 0] * B[:, 1] - A[:, 1] * B[:, 0]          # (A x B)_z
    dot = np.einsum("ij,ij->i", A, B)
    # signed area of the triangle (pole, A, B), for the north pole and the south pole as apex;
    # summed over a ring: the area of the side holding the apex when the ring goes round it,
    # else of the side without it
    area_n = np.abs(per_ring(2.0 * np.arctan2(cz, 1.0 + dot + A[:, 2] + B[:, 2])))
    area_s = np.abs(per_ring(2.0 * np.arctan2(-cz, 1.0 + dot - A[:, 2] - B[:, 2])))
    use_south = touch_n                 # the apex is a pole the ring does not touch
    area = np.where(use_south, area_s, area_n)
    around = np.abs(wind) > 180.0       # the deltas add up to +-360: the ring goes round the poles
    hemi = 2.0 * math.pi
    tol = 1e-9 * hemi
    apex_small = area < hemi - tol      # around: the apex's side is the smaller
    other_small = area > hemi + tol
    # rings not round the poles hold neither, unless the pole-free side is the larger: both
    both = odd | (touch_n & touch_s) | (around & ~apex_small & ~other_small) | (~around & (area > hemi - tol))
    has_apex = around & apex_small
    has_other = around & other_small
    north = both | np.where(use_south, has_other, has_apex)
    south = both | np.where(use_south, has_apex, has_other)
    return ids, north, south


def _parse(values: ByteArrays) -> tuple[_F, npt.NDArray[np.int64], npt.NDArray[np.int8],
                                        npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """``(xyzm, path lengths, path kinds, ISO codes per value, value index per path)``."""
    fast = _simple_fast(values)
    if fast is not None:
        xy, counts, kind, iso = fast
        xyzm = np.full((len(xy), 4), np.nan)
        xyzm[:, :2] = xy
        kinds = np.full(len(counts), kind, dtype=np.int8)
        if kind == _RING:
            xyzm, counts = _close_rings(xyzm, counts)
        return (xyzm, counts, kinds, np.full(len(values), iso, dtype=np.int32),
                np.arange(len(values), dtype=np.int64))
    n = len(values)
    codes = np.empty(n, dtype=np.int32)
    data = bytes(np.asarray(values.data))
    offsets = values.offsets
    parts: list[tuple[_F, int]] = []
    owners: list[int] = []
    # per-value loop: WKB headers are variable length and must be read in order
    for i in range(n):
        s, e = int(offsets[i]), int(offsets[i + 1])
        before = len(parts)
        try:
            codes[i], _ = _walk(data[s:e], 0, parts, 0)
        except struct.error as exc:
            raise ParquetFormatError(f"value {i}: malformed WKB: {exc}") from exc
        except ParquetFormatError as exc:
            add_context(exc, geography_value=i)
            raise
        owners.append(len(parts) - before)
    owner = np.repeat(np.arange(n, dtype=np.int64), owners)
    if not parts:
        return (np.empty((0, 4)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int8), codes, owner)
    closed = [_close(p) if k == _RING else p for p, k in parts]
    return (np.concatenate(closed), np.array([len(p) for p in closed], dtype=np.int64),
            np.array([k for _, k in parts], dtype=np.int8), codes, owner)


def spherical_bounds(values: ByteArrays) -> SphericalBounds:
    """Bounds of a page of WKB values under spherical edges.

    Raises
    ------
    ParquetFormatError
        A value is not well-formed WKB (with its index noted).
    """
    xyzm, counts, kinds, codes, _ = _parse(values)
    return _bound_paths(xyzm, counts, kinds, codes)


def spherical_value_boxes(values: ByteArrays) -> _F:
    """Each value's own spherical box, ``(n, 4)``: xmin, xmax, ymin, ymax (NaN: no X/Y).

    As :func:`spherical_bounds` per value, except the X range: the smaller
    of the value's range cut at the antimeridian and its range cut at the
    prime meridian (wrapping), whichever no edge crosses; full when edges
    cross both.  Conservative, not always the smallest arc (a value's
    vertices spread over both meridians with its gap elsewhere).

    Raises
    ------
    ParquetFormatError
        A value is not well-formed WKB.
    """
    n = len(values)
    xyzm, counts, kinds, _, owner = _parse(values)
    out = np.full((n, 4), np.nan)
    if len(xyzm) == 0:
        return out
    lon, lat = xyzm[:, 0], xyzm[:, 1]
    ok = np.isfinite(lon) & np.isfinite(lat)
    path_id, ia = _edge_starts(counts, kinds, ok)
    g = owner[path_id]                              # value of every vertex
    ylo = np.full(n, np.inf)
    yhi = np.full(n, -np.inf)
    np.minimum.at(ylo, g[ok], lat[ok])
    np.maximum.at(yhi, g[ok], lat[ok])
    # frame A: longitudes as they are; frame B: shifted to [0, 360) (cut at the prime meridian)
    lonb = np.where(lon < 0, lon + 360.0, lon)
    a_lo, a_hi = np.full(n, np.inf), np.full(n, -np.inf)
    b_lo, b_hi = np.full(n, np.inf), np.full(n, -np.inf)
    np.minimum.at(a_lo, g[ok], lon[ok])
    np.maximum.at(a_hi, g[ok], lon[ok])
    np.minimum.at(b_lo, g[ok], lonb[ok])
    np.maximum.at(b_hi, g[ok], lonb[ok])
    north = np.zeros(n, dtype=bool)
    south = np.zeros(n, dtype=bool)
    full = np.zeros(n, dtype=bool)
    full[g[ok & (np.abs(lat) >= 90.0)]] = True
    a_bad = np.zeros(n, dtype=bool)
    b_bad = np.zeros(n, dtype=bool)
    if len(ia):
        ed = _edges(lon, lat, ia)
        ge = g[ia]
        np.fmax.at(yhi, ge, ed.hi)
        np.fmin.at(ylo, ge, ed.lo)
        crosses_180 = ed.moving & (ed.east < ed.west)
        # an edge reaching 0 from the west would be cut too (its ends at 350 and 0 in frame B)
        crosses_0 = ed.moving & (ed.west < 0) & (ed.east >= 0) & ~crosses_180
        a_bad[ge[crosses_180]] = True
        b_bad[ge[crosses_0]] = True
        hv = ed.half
        psum = lat[ia] + lat[ia + 1]
        full[ge[hv]] = True
        north[ge[hv & (psum > -_HALF_TURN_TOL)]] = True
        south[ge[hv & (psum < _HALF_TURN_TOL)]] = True
        ring_edge = kinds[path_id[ia]] == _RING
        if np.any(ring_edge):
            rid, rn, rs = _ring_poles(path_id[ia][ring_edge], ed, ring_edge, lat[ia], lat[ia + 1])
            north[owner[rid[rn]]] = True
            south[owner[rid[rs]]] = True
    yhi[north] = 90.0
    ylo[south] = -90.0
    full |= north | south | (a_bad & b_bad)
    seen = np.isfinite(ylo)
    use_b = ~a_bad & ~b_bad & ((b_hi - b_lo) < (a_hi - a_lo)) | (a_bad & ~b_bad)
    # a tiny negative longitude shifts to 360.0 in frame B: a range that wide is every longitude
    full |= use_b & (b_hi - b_lo >= 360.0)
    xmin = np.where(use_b, np.where(b_lo > 180, b_lo - 360, b_lo), a_lo)
    xmax = np.where(use_b, np.where(b_hi > 180, b_hi - 360, b_hi), a_hi)
    xmin = np.where(full, -180.0, xmin)
    xmax = np.where(full, 180.0, xmax)
    out[seen] = np.column_stack([xmin, xmax, ylo, yhi])[seen]
    return out


def _close(p: _F) -> _F:
    """A ring whose last point is not its first gets the closing point appended."""
    if len(p) > 1 and not (p[0, 0] == p[-1, 0] and p[0, 1] == p[-1, 1]):
        return np.vstack([p, p[:1]])
    return p


def _close_rings(xyzm: _F, counts: npt.NDArray[np.int64]) -> tuple[_F, npt.NDArray[np.int64]]:
    ends = np.cumsum(counts)
    firsts = ends - counts
    nonempty = counts > 1
    f, last = firsts[nonempty], ends[nonempty] - 1
    open_ = np.zeros(len(counts), dtype=bool)
    open_[nonempty] = ~((xyzm[f, 0] == xyzm[last, 0]) & (xyzm[f, 1] == xyzm[last, 1]))
    if not np.any(open_):
        return xyzm, counts
    pieces = np.split(xyzm, ends[:-1])
    out = [np.vstack([p, p[:1]]) if o else p for p, o in zip(pieces, open_)]
    return np.concatenate(out), counts + open_


#: a chunk keeps at most this many disjoint longitude intervals between pages
_MAX_INTERVALS = 1024


def _compact(starts: _F, ends: _F) -> tuple[_F, _F]:
    """Keep the ``_MAX_INTERVALS - 1`` largest gaps between the intervals, fill the others.

    Only the largest gap decides the box (:func:`circular_cover`), so this is
    exact unless later pages fill that many larger gaps, and always covers
    more, never less.  It keeps a chunk of scattered points from re-sorting
    a list that grows with every page.
    """
    if len(starts) <= _MAX_INTERVALS:
        return starts, ends
    gaps = ends[:-1] - starts[1:]        # negated: argpartition finds the largest first
    cut = np.sort(np.argpartition(gaps, _MAX_INTERVALS - 2)[:_MAX_INTERVALS - 1])
    return np.concatenate([starts[:1], starts[cut + 1]]), np.concatenate([ends[cut], ends[-1:]])


class SphericalBoxBuilder:
    """Accumulates the spherical box of a chunk over its pages."""

    def __init__(self) -> None:
        self._s = np.empty(0)
        self._e = np.empty(0)
        self._lat = np.array([np.inf, -np.inf])
        self._z = np.array([np.inf, -np.inf])
        self._m = np.array([np.inf, -np.inf])
        self._full = False

    def add(self, b: SphericalBounds) -> None:
        """Fold one page's bounds in."""
        self._full = self._full or b.full_lon
        if not self._full:
            self._s, self._e = _compact(*_merge(np.concatenate([self._s, b.lon_starts]),
                                                np.concatenate([self._e, b.lon_ends])))
        self._lat = np.array([min(self._lat[0], b.lat[0]), max(self._lat[1], b.lat[1])])
        self._z = np.array([np.fmin(self._z[0], b.z[0]), np.fmax(self._z[1], b.z[1])])
        self._m = np.array([np.fmin(self._m[0], b.m[0]), np.fmax(self._m[1], b.m[1])])

    def box(self) -> tuple[float, float, float, float, float | None, float | None,
                           float | None, float | None] | None:
        """``(xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax)``, or None without X/Y values."""
        if not math.isfinite(self._lat[0]):
            return None
        if self._full:
            xmin, xmax = -180.0, 180.0
        else:
            if len(self._s) == 0:
                return None
            xmin, xmax = circular_cover(self._s, self._e)
        extra: list[float | None] = []
        for lo, hi in (self._z, self._m):
            ok = math.isfinite(lo)
            extra += [float(lo) if ok else None, float(hi) if ok else None]
        zmin, zmax, mmin, mmax = extra
        return (xmin, xmax, float(self._lat[0]), float(self._lat[1]), zmin, zmax, mmin, mmax)
