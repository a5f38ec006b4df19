"""Geospatial statistics of GEOMETRY / GEOGRAPHY columns (Geospatial.md, "Statistics").

A chunk's ``ColumnMetaData.geospatial_statistics`` (field 17) holds a
``BoundingBox`` and the list of WKB (ISO) type codes of its values::

    BoundingBox: xmin xmax ymin ymax [zmin zmax] [mmin mmax]     (doubles)
    geospatial_types: list<i32>  e.g. [1, 3, 1003]  (1000*dims + base type)

WKB layout walked here (OGC simple features, ISO variant)::

    +-------+------------+----------------------------------------------+
    | order | type  u32  | body                                         |
    | 0=BE  | base+1000Z | Point: ndim doubles                          |
    | 1=LE  |     +2000M | LineString: u32 n, n points                  |
    |       |            | Polygon: u32 rings, each (u32 n, n points)   |
    |       |            | Multi*/Collection: u32 n, n nested WKB       |
    +-------+------------+----------------------------------------------+

Rules and edge cases (all from Geospatial.md unless noted):

* null and NaN coordinates are skipped per dimension; an empty geometry
  (``POINT EMPTY`` is a point of NaNs, others have zero counts) adds its
  type code but nothing to the box;
* a dimension with no value is left out; without X or Y no box at all;
* Z/M are read from ISO codes (1000/2000/3000 offsets).  EWKB's high flag
  bits (0x80000000 Z, 0x40000000 M, 0x20000000 SRID followed by an i32) are
  accepted too and mapped to the ISO code, as writers in the wild emit them;
* type codes are those of the top-level geometries (as GeoParquet's
  ``geometry_types``), unique and sorted;
* GEOGRAPHY: X/Y must lie in [-180, 180] / [-90, 90].  Edges are geodesics,
  which bulge past their end points (toward the poles), so the box of the
  vertices is *not* a bound of the values.  With SPHERICAL edges (the
  default) the box comes from :mod:`parquet_core.metadata.geography`
  (great-circle latitude extremes, ``xmin > xmax`` across the
  antimeridian, full longitude and +-90 around a pole), as DataFusion's
  corpus files store it.  The ellipsoidal algorithms (VINCENTY, THOMAS,
  ANDOYER, KARNEY) get only the type codes, no box (Arrow C++ writes no
  geospatial statistics for GEOGRAPHY at all).  Reading honours wrapping
  boxes: :func:`bbox_intersects`.

Parsing is a per-geometry walk (the format is a sequence of
variable-length headers that must be read in order); inside a coordinate
sequence the doubles are read with one ``np.frombuffer``.  Pages whose
values are all little-endian 2D points, all little-endian 2D LineStrings
or all one-ring little-endian 2D Polygons take fully vectorised paths.
``benchmarks/geo_bench.py`` measures both.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from parquet_core._kernels.binary import ByteArrays
from parquet_core.errors import ParquetFormatError, add_context
from parquet_core.metadata import wkb
from parquet_core.metadata.geography import SphericalBoxBuilder, _simple_fast, spherical_bounds
from parquet_core.thrift import pt

__all__ = ["BoundingBox", "GeospatialStatistics", "wkb_bounds", "GeospatialStatsBuilder",
           "bbox_intersects", "decode_geospatial_statistics"]

_AXES = ("x", "y", "z", "m")


@dataclass(frozen=True, slots=True)
class BoundingBox:
    """Per-axis bounds; ``xmin > xmax`` means the box wraps across the antimeridian."""

    xmin: float
    xmax: float
    ymin: float
    ymax: float
    zmin: float | None = None
    zmax: float | None = None
    mmin: float | None = None
    mmax: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        """Return the eight bounds by name (absent ones as None)."""
        return {f"{a}{e}": getattr(self, f"{a}{e}") for a in _AXES for e in ("min", "max")}


@dataclass(frozen=True, slots=True)
class GeospatialStatistics:
    """Decoded ``GeospatialStatistics``: ``bbox`` (None: not stored) and type codes.

    ``geospatial_types`` is None when the field is absent and ``()`` when
    the writer stated the types are unknown.
    """

    bbox: BoundingBox | None
    geospatial_types: tuple[int, ...] | None

    def to_dict(self) -> dict[str, Any]:
        """Return a plain-Python summary (``pqc meta``)."""
        return {"bbox": None if self.bbox is None else self.bbox.to_dict(),
                "geospatial_types": None if self.geospatial_types is None else list(self.geospatial_types)}

    def to_thrift(self) -> Any:
        """Return the ``pt.GeospatialStatistics`` struct."""
        box = None if self.bbox is None else pt.BoundingBox(**self.bbox.to_dict())
        types = None if self.geospatial_types is None else list(self.geospatial_types)
        return pt.GeospatialStatistics(bbox=box, geospatial_types=types)


def decode_geospatial_statistics(raw: Any) -> GeospatialStatistics | None:
    """Wrap a ``pt.GeospatialStatistics`` (None stays None).

    Raises
    ------
    ParquetFormatError
        A box lacks one of its required X/Y bounds.
    """
    if raw is None:
        return None
    box = None
    if raw.bbox is not None:
        b = raw.bbox
        if None in (b.xmin, b.xmax, b.ymin, b.ymax):
            raise ParquetFormatError("GeospatialStatistics.bbox: xmin, xmax, ymin and ymax are required")
        box = BoundingBox(float(b.xmin), float(b.xmax), float(b.ymin), float(b.ymax),
                          *(None if getattr(b, k) is None else float(getattr(b, k))
                            for k in ("zmin", "zmax", "mmin", "mmax")))
    types = None if raw.geospatial_types is None else tuple(int(t) for t in raw.geospatial_types)
    return GeospatialStatistics(box, types)


# -- WKB --------------------------------------------------------------------------------------------

def _fold(acc: npt.NDArray[np.float64], pts: npt.NDArray[np.float64]) -> None:
    """Widen ``acc`` ([min x,y,z,m], [max x,y,z,m]) by (n, 4) points; fmin/fmax skip NaN."""
    if pts.shape[0] == 0:
        return
    np.fmin(acc[0], np.fmin.reduce(pts, axis=0), out=acc[0])
    np.fmax(acc[1], np.fmax.reduce(pts, axis=0), out=acc[1])


def _walk(buf: bytes, pos: int, acc: npt.NDArray[np.float64], depth: int) -> tuple[int, int]:
    """Fold one (possibly nested) geometry into ``acc``; return ``(iso_code, next_pos)``."""
    if depth > wkb.MAX_DEPTH:
        raise ParquetFormatError(f"WKB nested deeper than {wkb.MAX_DEPTH} levels")
    end, base, has_z, has_m, pos = wkb.header(buf, pos)
    ndim = 2 + has_z + has_m
    iso = base + 1000 * (has_z + 2 * has_m)
    if base == 1:
        pts, pos = wkb.coords(buf, pos, 1, ndim, end)
        _fold(acc, wkb.to_xyzm(pts, has_z, has_m))
    elif base == 2:
        n, pos = wkb.count(buf, pos, end)
        pts, pos = wkb.coords(buf, pos, n, ndim, end)
        _fold(acc, wkb.to_xyzm(pts, has_z, has_m))
    elif base == 3:
        rings, pos = wkb.count(buf, pos, end)
        for _ in range(rings):   # one header per ring: sequential by format
            n, pos = wkb.count(buf, pos, end)
            pts, pos = wkb.coords(buf, pos, n, ndim, end)
            _fold(acc, wkb.to_xyzm(pts, has_z, has_m))
    else:
        parts, pos = wkb.count(buf, pos, end)
        if parts > len(buf):
            raise ParquetFormatError(f"WKB collection claims {parts} parts in {len(buf)} bytes")
        for _ in range(parts):
            _, pos = _walk(buf, pos, acc, depth + 1)
    return iso, pos


def _points_fast(values: ByteArrays) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]] | None:
    """Vectorised path: every value is a 21-byte little-endian 2D point; else None."""
    n = len(values)
    lengths = values.lengths()
    if n == 0 or not np.all(lengths == 21):
        return None
    start = int(values.offsets[0])
    rows = np.asarray(values.data[start:start + 21 * n]).reshape(n, 21)
    if not (np.all(rows[:, 0] == 1) and np.all(rows[:, 1:5].copy().view("<u4")[:, 0] == 1)):
        return None
    xy = rows[:, 5:21].copy().view("<f8")
    box = np.empty((n, 2, 4))
    box[:, :, 2:] = np.nan
    box[:, 0, :2] = xy
    box[:, 1, :2] = xy
    return box, np.ones(n, dtype=np.int32)


def wkb_bounds(values: ByteArrays) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
    """Return each geometry's box and ISO type code.

    Returns
    -------
    (boxes, codes)
        ``boxes`` is ``(n, 2, 4)``: ``[:, 0]`` the minima and ``[:, 1]`` the
        maxima of x, y, z, m, NaN where the geometry has no such value.

    Raises
    ------
    ParquetFormatError
        A value is not well-formed WKB (with its index noted).
    """
    fast = _points_fast(values)
    if fast is not None:
        return fast
    fast = _paths_fast(values)
    if fast is not None:
        return fast
    return _wkb_bounds_walk(values)


def _paths_fast(values: ByteArrays) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]] | None:
    """Vectorised path: every value a little-endian 2D LineString, or every value a one-ring
    little-endian 2D Polygon (the geography module's parse); else None."""
    parsed = _simple_fast(values)
    if parsed is None:
        return None
    xy, counts, _, iso = parsed
    n = len(values)
    box = np.full((n, 2, 4), np.nan)
    has = counts > 0
    if np.any(has):
        first = (np.cumsum(counts) - counts)[has]
        box[has, 0, :2] = np.fmin.reduceat(xy, first, axis=0)
        box[has, 1, :2] = np.fmax.reduceat(xy, first, axis=0)
    return box, np.full(n, iso, dtype=np.int32)


def _wkb_bounds_walk(values: ByteArrays) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
    """:func:`wkb_bounds` by walking each value (any WKB)."""
    n = len(values)
    boxes = np.empty((n, 2, 4))
    codes = np.empty(n, dtype=np.int32)
    data = bytes(np.asarray(values.data))
    offsets = values.offsets
    # per-value loop: WKB headers are variable length and must be read in order
    for i in range(n):
        s, e = int(offsets[i]), int(offsets[i + 1])
        acc = np.array([[np.inf] * 4, [-np.inf] * 4])
        try:
            codes[i], used = _walk(data[s:e], 0, acc, 0)
        except struct.error as exc:
            raise ParquetFormatError(f"value {i}: malformed WKB: {exc}") from exc
        except ParquetFormatError as exc:
            add_context(exc, geometry_value=i)
            raise
        acc[0][np.isinf(acc[0])] = np.nan
        acc[1][np.isinf(acc[1])] = np.nan
        boxes[i] = acc
    return boxes, codes


class GeospatialStatsBuilder:
    """Accumulate ``GeospatialStatistics`` over the pages of one chunk.

    Parameters
    ----------
    geography:
        True for GEOGRAPHY columns: coordinates outside [-180, 180] x
        [-90, 90] are rejected (Geospatial.md, "Bounding Box").
    algorithm:
        GEOGRAPHY's edge interpolation (lower case; None means the default,
        ``"spherical"``).  Spherical edges get a spherical box; the
        ellipsoidal algorithms get none (this engine has no bounder for them).
    """

    def __init__(self, geography: bool = False, algorithm: str | None = None) -> None:
        self.geography = geography
        self.spherical = geography and algorithm in (None, "spherical")
        self._sphere = SphericalBoxBuilder() if self.spherical else None
        self._lo = np.full(4, np.inf)
        self._hi = np.full(4, -np.inf)
        self._types: set[int] = set()

    def update(self, values: ByteArrays) -> None:
        """Fold the non-null WKB values of one page in.

        Raises
        ------
        ValueError
            A GEOGRAPHY coordinate is outside the canonical ranges.
        ParquetFormatError
            Malformed WKB.
        """
        if len(values) == 0:
            return
        if self._sphere is not None:
            page = spherical_bounds(values)
            lo, hi, codes = page.vertex_lo, page.vertex_hi, page.codes
        else:
            boxes, codes = wkb_bounds(values)
            lo = np.fmin.reduce(boxes[:, 0], axis=0, initial=np.inf)
            hi = np.fmax.reduce(boxes[:, 1], axis=0, initial=-np.inf)
        if self.geography and (lo[0] < -180 or hi[0] > 180 or lo[1] < -90 or hi[1] > 90):
            raise ValueError("GEOGRAPHY coordinates must lie in [-180, 180] x [-90, 90]")
        if self._sphere is not None:
            self._sphere.add(page)
        self._lo = np.fmin(self._lo, lo)
        self._hi = np.fmax(self._hi, hi)
        self._types.update(int(c) for c in np.unique(codes))

    def result(self, with_bbox: bool = True) -> GeospatialStatistics:
        """Return the statistics so far (no box when X or Y never had a value).

        A chunk of only nulls gets ``geospatial_types=[]`` ("not known"), as
        Arrow C++ writes it.  ``with_bbox=False`` leaves the box out.  A
        GEOGRAPHY chunk gets its spherical box, or none for the ellipsoidal
        algorithms (see the module docstring).
        """
        lo, hi = self._lo, self._hi
        box = None
        if self.geography:
            if with_bbox and self._sphere is not None:
                sb = self._sphere.box()
                box = None if sb is None else BoundingBox(*sb)
        elif with_bbox and math.isfinite(lo[0]) and math.isfinite(lo[1]):
            extra: list[float | None] = []
            for axis in (2, 3):
                ok = math.isfinite(lo[axis])
                extra += [float(lo[axis]) if ok else None, float(hi[axis]) if ok else None]
            box = BoundingBox(float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]), *extra)
        return GeospatialStatistics(box, tuple(sorted(self._types)))


def bbox_intersects(xmin: Any, xmax: Any, ymin: Any, ymax: Any,
                    query: tuple[float, float, float, float]) -> Any:
    """True where a box ``[xmin, xmax] x [ymin, ymax]`` meets ``query`` = (xmin, ymin, xmax, ymax).

    Works on scalars or arrays.  Either side may wrap in X (``xmin > xmax``:
    the box covers ``x >= xmin`` or ``x <= xmax``).  NaN bounds never meet.
    """
    qx0, qy0, qx1, qy1 = query
    y_ok = (np.asarray(ymin) <= qy1) & (np.asarray(ymax) >= qy0)
    xmin, xmax = np.asarray(xmin, dtype=np.float64), np.asarray(xmax, dtype=np.float64)
    wraps = xmin > xmax
    if qx0 <= qx1:
        plain = (xmin <= qx1) & (xmax >= qx0)
        wrapped = (qx1 >= xmin) | (qx0 <= xmax)
    else:     # the query wraps: it covers x >= qx0 or x <= qx1
        plain = (xmax >= qx0) | (xmin <= qx1)
        wrapped = np.ones_like(wraps)    # two wrapping intervals always share +-180
    return y_ok & np.where(wraps, wrapped, plain)
