"""Geospatial statistics rules (Geospatial.md): the box and type list a GEOMETRY or
GEOGRAPHY chunk declares are well formed, and, at the data level, hold every value.

A reader prunes with ``intersects`` by the box, so a box that misses a
value's coordinates (or a type list that misses its type) drops rows: those
are errors.  The WKB of every value is read with the same walker the writer
uses to build the statistics (:func:`parquet_core.metadata.geospatial.wkb_bounds`).
GEOGRAPHY with SPHERICAL edges is also checked arc by arc
(:func:`parquet_core.metadata.geography.spherical_bounds`): the box must hold
each great-circle edge's latitude bulge and longitude sweep, which a box of
the vertices misses.  Which side of a ring is the polygon (and so whether a
pole is inside) is the writer's call and is not checked.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from parquet_core.metadata.geography import spherical_bounds
from parquet_core.metadata.geospatial import wkb_bounds
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, WARNING, rule

__all__ = ["check_geospatial_metadata", "check_chunk_values"]

_SPEC = "Geospatial.md"
WRONG_TYPE = rule("geospatial.statistics-wrong-type", ERROR, f"{_SPEC} (GeospatialStatistics)",
                  "geospatial_statistics appear only on GEOMETRY and GEOGRAPHY columns")
BBOX = rule("geospatial.bbox-invalid", ERROR, f"{_SPEC} Bounding Box",
            "the box's bounds are numbers, min <= max (X may wrap), Z and M bounds come in pairs")
GEOGRAPHY_RANGE = rule("geospatial.geography-range", ERROR, f"{_SPEC} Bounding Box",
                       "GEOGRAPHY boxes and coordinates lie in [-180, 180] x [-90, 90]")
WRAP_PLANAR = rule("geospatial.bbox-wraps-planar", WARNING, f"{_SPEC} Bounding Box",
                   "a GEOMETRY box with xmin > xmax (wraparound is meant for the antimeridian)")
TYPES = rule("geospatial.types-invalid", ERROR, f"{_SPEC} Geospatial Types",
             "geospatial_types are unique ISO WKB codes (1-7 plus 0/1000/2000/3000)")
WKB = rule("geospatial.wkb-malformed", ERROR, f"{_SPEC}; LogicalTypes.md GEOMETRY",
           "every GEOMETRY/GEOGRAPHY value is well-formed WKB")
BBOX_MISSES = rule("geospatial.bbox-excludes-value", ERROR, f"{_SPEC} Bounding Box",
                   "the chunk's box holds every value's coordinates (or pruning drops rows)")
TYPES_MISS = rule("geospatial.types-exclude-value", ERROR, f"{_SPEC} Geospatial Types",
                  "a non-empty geospatial_types list holds every value's type")

_KINDS = ("geometry", "geography")
_VALID_CODES = {base + dim for base in range(1, 8) for dim in (0, 1000, 2000, 3000)}
_AXES = ("x", "y", "z", "m")


def _kind(ch: ChunkState) -> str | None:
    name = getattr(ch.desc.data_type, "name", None)
    return name if name in _KINDS else None


def check_geospatial_metadata(ck: Checker) -> None:
    """Footer level: every chunk's ``geospatial_statistics`` is well formed."""
    for ch in ck.iter_chunks():
        geo = getattr(ch.meta, "geospatial_statistics", None) if ch.meta is not None else None
        if geo is None:
            continue
        kind = _kind(ch)
        if kind is None:
            ck.report_chunk(WRONG_TYPE, ch, f"geospatial_statistics on a column of type {ch.desc.data_type}")
            continue
        _check_types(ck, ch, geo.geospatial_types)
        if geo.bbox is not None:
            _check_box(ck, ch, geo.bbox, kind)


def _check_types(ck: Checker, ch: ChunkState, types: Any) -> None:
    if types is None:
        return
    codes = list(types)
    dup = sorted(c for c, k in Counter(codes).items() if k > 1)
    if dup:
        ck.report_chunk(TYPES, ch, f"geospatial_types repeats {dup}; the list must be unique")
    bad = sorted({c for c in codes if c not in _VALID_CODES})
    if bad:
        ck.report_chunk(TYPES, ch, f"geospatial_types holds {bad}, which are not ISO WKB type codes")


def _bound(box: Any, name: str) -> float | None:
    v = getattr(box, name)
    return None if v is None else float(v)


def _check_box(ck: Checker, ch: ChunkState, box: Any, kind: str) -> None:
    b = {f"{a}{e}": _bound(box, f"{a}{e}") for a in _AXES for e in ("min", "max")}
    for a in "xy":
        if b[f"{a}min"] is None or b[f"{a}max"] is None:
            ck.report_chunk(BBOX, ch, f"bbox lacks the required {a}min/{a}max")
            return
    for a in _AXES:
        lo, hi = b[f"{a}min"], b[f"{a}max"]
        if (lo is None) != (hi is None):
            ck.report_chunk(BBOX, ch, f"bbox has {a}min={lo} but {a}max={hi}: the two come together")
            continue
        if lo is None or hi is None:
            continue
        if math.isnan(lo) or math.isnan(hi):
            ck.report_chunk(BBOX, ch, f"bbox {a} bounds are NaN ({lo}, {hi}); NaN coordinates are skipped, "
                                      "never stored")
        elif lo > hi and a != "x":
            ck.report_chunk(BBOX, ch, f"bbox {a}min {lo} > {a}max {hi} (only X may wrap)")
        elif lo > hi and kind == "geometry":
            ck.report_chunk(WRAP_PLANAR, ch, f"bbox xmin {lo} > xmax {hi} on a GEOMETRY column: readers "
                                             "that do not expect wraparound on planar data prune wrongly")
    if kind == "geography":
        outside = [f"{k}={v}" for k, v in b.items() if v is not None and
                   ((k[0] == "x" and not -180 <= v <= 180) or (k[0] == "y" and not -90 <= v <= 90))]
        if outside:
            ck.report_chunk(GEOGRAPHY_RANGE, ch, f"bbox {', '.join(outside)} outside [-180, 180] x [-90, 90]")


def check_chunk_values(ck: Checker, ch: ChunkState) -> None:
    """Data level: every value parses as WKB and lies in the declared box and types."""
    kind = _kind(ch)
    if kind is None or ch.values is None or len(ch.values) == 0:
        return
    try:
        boxes, codes = wkb_bounds(ch.values)
    except Exception as exc:  # noqa: BLE001 - malformed WKB is a finding, whatever the walker raised
        ck.report_chunk(WKB, ch, f"{type(exc).__name__}: {exc}")
        return
    lo = np.fmin.reduce(boxes[:, 0], axis=0, initial=np.inf)
    hi = np.fmax.reduce(boxes[:, 1], axis=0, initial=-np.inf)
    if kind == "geography" and (lo[0] < -180 or hi[0] > 180 or lo[1] < -90 or hi[1] > 90):
        ck.report_chunk(GEOGRAPHY_RANGE, ch, f"values reach x [{lo[0]}, {hi[0]}], y [{lo[1]}, {hi[1]}]; "
                                             "GEOGRAPHY coordinates lie in [-180, 180] x [-90, 90]")
    geo = getattr(ch.meta, "geospatial_statistics", None)
    if geo is None:
        return
    if geo.geospatial_types:
        missing = sorted({int(c) for c in np.unique(codes)} - {int(t) for t in geo.geospatial_types})
        if missing:
            ck.report_chunk(TYPES_MISS, ch, f"values of types {missing} but geospatial_types is "
                                            f"{sorted(geo.geospatial_types)}")
    if geo.bbox is None:
        return
    # GEOGRAPHY boxes come from spherical geometry (edges bulge past their vertices, and
    # writers such as S2 round the last bit), so only the vertices' extremes are checked,
    # each on its own, within a tolerance far below any real coordinate difference.
    eps = 1e-9 if kind == "geography" else 0.0
    for k, a in enumerate(_AXES):
        vlo, vhi = float(lo[k]), float(hi[k])
        if not math.isfinite(vlo):      # no value has this axis
            continue
        slo, shi = _bound(geo.bbox, f"{a}min"), _bound(geo.bbox, f"{a}max")
        if slo is None or shi is None:
            ck.report_chunk(BBOX_MISSES, ch, f"values have {a} coordinates in [{vlo}, {vhi}] but the bbox "
                                             f"has no {a} bounds")
            continue
        if math.isnan(slo) or math.isnan(shi):
            continue    # reported by the footer rule
        if a == "x" and (slo > shi or kind == "geography"):
            _check_x(ck, ch, boxes, slo, shi, eps, kind)
            continue
        if vlo < slo - eps or vhi > shi + eps:
            ck.report_chunk(BBOX_MISSES, ch, f"values have {a} in [{vlo}, {vhi}] but the bbox says "
                                             f"[{slo}, {shi}]")
    if kind == "geography" and getattr(ch.desc.data_type, "algorithm", None) in (None, "spherical"):
        _check_arcs(ck, ch, geo.bbox)


def _check_arcs(ck: Checker, ch: ChunkState, box: Any) -> None:
    """SPHERICAL edges: the box holds every great-circle arc, not only its vertices.

    An arc bulges toward a pole between its vertices and covers the shorter
    longitude interval between them (across the antimeridian if that is
    shorter); a box that misses either prunes rows that a spherical reader
    keeps.  Which side of a ring is the polygon is left to the writer (no
    pole is required here), and so is the longitude range of values that
    touch a pole.
    """
    xmin, xmax, ymin, ymax = (_bound(box, k) for k in ("xmin", "xmax", "ymin", "ymax"))
    if xmin is None or xmax is None or ymin is None or ymax is None:
        return
    if any(math.isnan(v) for v in (xmin, xmax, ymin, ymax)):
        return
    try:
        sb = spherical_bounds(ch.values)
    except Exception:  # noqa: BLE001 - malformed WKB is reported by check_chunk_values
        return
    eps = 1e-9
    lo, hi = float(sb.arc_lat[0]), float(sb.arc_lat[1])
    if math.isfinite(lo) and (lo < ymin - eps or hi > ymax + eps):
        ck.report_chunk(BBOX_MISSES, ch, f"the values' great-circle edges reach latitudes [{lo}, {hi}] "
                                         f"between their vertices, outside the bbox's [{ymin}, {ymax}]")
    if sb.full_lon or len(sb.lon_starts) == 0:
        return
    full = xmin == -180 and xmax == 180
    width = 360.0 if full else (xmax - xmin) % 360.0
    span = sb.lon_ends - sb.lon_starts
    out = (sb.lon_starts - xmin + eps) % 360.0 + span > width + 2 * eps
    # (modular offsets: -180 and 180 are one meridian, as they should be)
    if not full and np.any(out):
        i = int(np.flatnonzero(out)[0])
        box_x = f"x >= {xmin} or x <= {xmax}" if xmin > xmax else f"[{xmin}, {xmax}]"
        ck.report_chunk(BBOX_MISSES, ch, f"the values' great-circle edges cover longitudes "
                                         f"[{sb.lon_starts[i]}, {sb.lon_ends[i]}], outside the bbox's {box_x}")


def _check_x(ck: Checker, ch: ChunkState, boxes: Any, xmin: float, xmax: float, eps: float, kind: str) -> None:
    """X against a wrapped box (``x >= xmin or x <= xmax``), or any GEOGRAPHY box.

    A planar value's whole x range must fit one side of a wrapped box; on a
    sphere a line may cross the antimeridian, so there each extreme vertex is
    checked on its own.
    """
    lo, hi = boxes[:, 0, 0], boxes[:, 1, 0]
    known = ~np.isnan(lo)

    def inside(x: Any) -> Any:
        if xmin > xmax:
            return (x >= xmin - eps) | (x <= xmax + eps)
        return (x >= xmin - eps) & (x <= xmax + eps)

    if kind == "geography":
        ok = inside(lo) & inside(hi)
    else:
        ok = (lo >= xmin) | (hi <= xmax)
    bad = np.flatnonzero(known & ~ok)
    if len(bad):
        i = int(bad[0])
        box = f"x >= {xmin} or x <= {xmax}" if xmin > xmax else f"[{xmin}, {xmax}]"
        ck.report_chunk(BBOX_MISSES, ch, f"value {i} has x in [{lo[i]}, {hi[i]}], outside the box's {box} "
                                         f"({len(bad)} values)")
