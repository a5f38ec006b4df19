"""Geospatial statistics rules: each broken file is a corpus file (written by Arrow C++) with
one fact of its ``GeospatialStatistics`` edited; the unedited files are clean."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.thrift import pt
from tests.check.broken import edit_footer
from tests._support.check_files import expect, find

DATA = Path(os.environ.get("PARQUET_TEST_DATA", "")) / "geospatial"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="PARQUET_TEST_DATA is not set")


def _bytes(name: str) -> bytes:
    return (DATA / f"{name}.parquet").read_bytes()


def _geo(meta, rg: int = 0, col: int = 2):  # type: ignore[no-untyped-def]
    return meta.row_groups[rg].columns[col].meta_data.geospatial_statistics


@pytest.mark.parametrize("name", ["geospatial", "geospatial-with-nan", "geography-points",
                                  "geography-lines", "geography-polygons", "crs-geography"])
def test_corpus_files_are_clean(name: str) -> None:
    report = pc.check(_bytes(name))
    assert not [f for f in report.findings if f.rule.startswith("geospatial")], report


def test_statistics_on_a_non_geo_column() -> None:
    def put(m):  # type: ignore[no-untyped-def]
        m.row_groups[0].columns[1].meta_data.geospatial_statistics = pt.GeospatialStatistics(geospatial_types=[1])
    expect(edit_footer(_bytes("geospatial"), put), "geospatial.statistics-wrong-type", 0, "wkt", level="footer")


@pytest.mark.parametrize("edit, text", [
    (lambda b: setattr(b, "ymin", 99.0), "ymin 99.0 > ymax"),
    (lambda b: setattr(b, "zmax", None), "zmin=30.0 but zmax=None"),
    (lambda b: setattr(b, "mmin", float("nan")), "NaN"),
])
def test_bbox_invalid(edit, text: str) -> None:  # type: ignore[no-untyped-def]
    report = expect(edit_footer(_bytes("geospatial"), lambda m: edit(_geo(m).bbox)),
                    "geospatial.bbox-invalid", 0, "geometry", level="footer")
    assert text in find(report, "geospatial.bbox-invalid", 0).message


def test_planar_wraparound_is_a_warning() -> None:
    def wrap(m):  # type: ignore[no-untyped-def]
        _geo(m).bbox.xmin, _geo(m).bbox.xmax = 40.0, 10.0
    expect(edit_footer(_bytes("geospatial"), wrap), "geospatial.bbox-wraps-planar", 0, "geometry",
           level="footer", severity="warning")


def test_geography_box_out_of_range() -> None:
    def far(m):  # type: ignore[no-untyped-def]
        _geo(m, col=1).bbox.ymax = 95.0
    expect(edit_footer(_bytes("geography-points"), far), "geospatial.geography-range", 0, "geometry",
           level="footer")


@pytest.mark.parametrize("types", [[1, 1, 2], [1, 9]])
def test_types_invalid(types: list[int]) -> None:
    def put(m):  # type: ignore[no-untyped-def]
        _geo(m).geospatial_types = types
    expect(edit_footer(_bytes("geospatial"), put), "geospatial.types-invalid", 0, "geometry", level="footer")


def test_box_that_misses_values_is_an_error() -> None:
    def shrink(m):  # type: ignore[no-untyped-def]
        _geo(m).bbox.xmax = 20.0
    report = expect(edit_footer(_bytes("geospatial"), shrink), "geospatial.bbox-excludes-value", 0, "geometry")
    assert "[10.0, 20.0]" in find(report, "geospatial.bbox-excludes-value", 0).message
    # the footer level cannot see it
    assert not any(f.rule == "geospatial.bbox-excludes-value"
                   for f in pc.check(edit_footer(_bytes("geospatial"), shrink), level="footer").findings)


def test_box_without_an_axis_the_values_have() -> None:
    def flat(m):  # type: ignore[no-untyped-def]
        _geo(m).bbox.zmin = _geo(m).bbox.zmax = None
    report = expect(edit_footer(_bytes("geospatial"), flat), "geospatial.bbox-excludes-value", 0, "geometry")
    assert "no z bounds" in find(report, "geospatial.bbox-excludes-value", 0).message


def test_geography_box_that_misses_a_vertex() -> None:
    def shrink(m):  # type: ignore[no-untyped-def]
        _geo(m, col=1).bbox.ymax = -30.0
    expect(edit_footer(_bytes("geography-points"), shrink), "geospatial.bbox-excludes-value", 0, "geometry")


def test_types_that_miss_a_value() -> None:
    def fewer(m):  # type: ignore[no-untyped-def]
        _geo(m).geospatial_types = [1, 2]
    report = expect(edit_footer(_bytes("geospatial"), fewer), "geospatial.types-exclude-value", 0, "geometry")
    assert "geospatial_types is [1, 2]" in find(report, "geospatial.types-exclude-value", 0).message
    # an empty list means "not known": never an error
    def unknown(m):  # type: ignore[no-untyped-def]
        _geo(m).geospatial_types = []
    assert not pc.check(edit_footer(_bytes("geospatial"), unknown)).errors


def test_malformed_wkb_is_reported() -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    # Write the bytes as plain BINARY with pyarrow, then annotate the column GEOMETRY in the footer.
    buf = io.BytesIO()
    pq.write_table(pa.table({"g": pa.array([b"\x01\x01\x00\x00\x00" + bytes(16), b"\x01\x01\x00"],
                                           pa.binary())}), buf)

    def annotate(m):  # type: ignore[no-untyped-def]
        m.schema[1].logicalType = pt.LogicalType(GEOMETRY=pt.GeometryType())
    expect(edit_footer(buf.getvalue(), annotate), "geospatial.wkb-malformed", 0, "g")


def _line_wkb(*xy: float) -> bytes:
    import struct
    return struct.pack("<BII", 1, 2, len(xy) // 2) + struct.pack(f"<{len(xy)}d", *xy)


def test_geography_box_that_misses_an_arc_bulge() -> None:
    """Vertices at 60N, 90 degrees apart: the arc reaches ~67.8N; a vertex box misses it."""
    import io
    buf = io.BytesIO()
    pc.write_table({"g": [_line_wkb(0, 60, 90, 60)]}, buf, schema=pc.schema([pc.field("g", pc.geography())]))
    clean = buf.getvalue()
    assert not [f for f in pc.check(clean, level="data").findings if f.rule.startswith("geospatial")]

    def vertex_box(m):  # type: ignore[no-untyped-def]
        _geo(m, col=0).bbox.ymax = 60.0
    report = expect(edit_footer(clean, vertex_box), "geospatial.bbox-excludes-value", 0, "g")
    assert "great-circle" in find(report, "geospatial.bbox-excludes-value", 0).message


def test_geography_box_that_misses_an_antimeridian_crossing() -> None:
    """170E to 170W crosses 180: a box [-170, 170] (not wrapping) holds the vertices only."""
    import io
    buf = io.BytesIO()
    pc.write_table({"g": [_line_wkb(170, 0, -170, 0)]}, buf, schema=pc.schema([pc.field("g", pc.geography())]))

    def unwrap(m):  # type: ignore[no-untyped-def]
        b = _geo(m, col=0).bbox
        b.xmin, b.xmax = -170.0, 170.0
    report = expect(edit_footer(buf.getvalue(), unwrap), "geospatial.bbox-excludes-value", 0, "g")
    assert "longitudes" in find(report, "geospatial.bbox-excludes-value", 0).message


def test_ellipsoidal_geography_has_no_box_and_is_clean() -> None:
    import io
    buf = io.BytesIO()
    pc.write_table({"g": [_line_wkb(0, 60, 90, 60)]}, buf,
                   schema=pc.schema([pc.field("g", pc.geography(algorithm="karney"))]))
    assert pc.ParquetFile(io.BytesIO(buf.getvalue())).metadata.row_group(0).column(0) \
        .geospatial_statistics.bbox is None
    assert not [f for f in pc.check(buf.getvalue(), level="data").findings if f.rule.startswith("geospatial")]
