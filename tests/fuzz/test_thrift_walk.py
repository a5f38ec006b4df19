"""The fuzzer's own thrift walker and mutators, checked against footers pyarrow writes."""

from __future__ import annotations

import io
import random

import pyarrow as pa
import pyarrow.parquet as papq
import pytest

import parquet_core as pc
from tests.fuzz.mutate import MUTATORS, layout_of, mutate, set_int, splice
from tests.fuzz.thrift_walk import encode_zigzag, walk_struct


@pytest.fixture(scope="module")
def arrow_file() -> bytes:
    t = pa.table({"a": pa.array(range(1000), pa.int64()), "s": pa.array([f"v{i % 7}" for i in range(1000)])})
    sink = io.BytesIO()
    papq.write_table(t, sink, row_group_size=400, write_page_index=True, compression="NONE")
    return sink.getvalue()


def _field(lay, path):  # type: ignore[no-untyped-def]
    return next(i for i in lay.items if i.kind == "int" and i.path == path)


def test_walker_finds_footer_fields(arrow_file: bytes) -> None:
    lay = layout_of(arrow_file)
    assert lay.error is None
    assert int(_field(lay, "num_rows").value) == 1000
    assert [int(_field(lay, f"row_groups[{k}].num_rows").value) for k in range(3)] == [400, 400, 200]
    md = papq.read_metadata(io.BytesIO(arrow_file))
    dpo = _field(lay, "row_groups[1].columns[0].meta_data.data_page_offset")
    assert int(dpo.value) == md.row_group(1).column(0).data_page_offset
    names = [i for i in lay.items if i.kind == "binary" and i.path.startswith("schema[")]
    assert [arrow_file[i.end:i.data_end] for i in names] == [b"schema", b"a", b"s"]
    # the page headers, column indexes and offset indexes the footer points at were walked too
    assert any(".data_page_header.num_values" in i.path for i in lay.items)
    assert any(".column_index.boundary_order" in i.path for i in lay.items)
    assert any(".offset_index.page_locations[0].first_row_index" in i.path for i in lay.items)


def test_walker_spans_cover_the_footer(arrow_file: bytes) -> None:
    lay = layout_of(arrow_file)
    _, end = walk_struct(arrow_file, lay.footer_start, len(arrow_file) - 8, "FileMetaData")
    assert end == len(arrow_file) - 8


def test_reencoding_keeps_the_file_readable(arrow_file: bytes) -> None:
    lay = layout_of(arrow_file)
    # a longer varint moves everything after it: the footer length must follow
    big = set_int(arrow_file, lay, _field(lay, "version"), 200)
    assert len(big) > len(arrow_file)
    assert pc.read_metadata(big).num_rows == 1000
    # a shorter, padded re-encoding outside the footer keeps offsets
    new = set_int(arrow_file, lay, _field(lay, "num_rows"), 1000, pad=True)
    assert pc.read_table(new).num_rows == 1000
    changed = set_int(arrow_file, lay, _field(lay, "num_rows"), 999)
    assert pc.read_metadata(changed).num_rows == 999
    same = splice(arrow_file, lay, lay.footer_start, lay.footer_start, b"")
    assert same == arrow_file


def test_zigzag() -> None:
    assert encode_zigzag(0) == b"\x00"
    assert encode_zigzag(-1) == b"\x01"
    assert encode_zigzag(1) == b"\x02"
    assert encode_zigzag(-(2**63)) == b"\xff" * 9 + b"\x01"


def test_every_mutator_is_deterministic_and_applies(arrow_file: bytes) -> None:
    lay = layout_of(arrow_file)
    for name, (fn, _) in MUTATORS.items():
        a = fn(random.Random(5), arrow_file, lay)
        b = fn(random.Random(5), arrow_file, lay)
        assert a is not None and a == b, name
    m1 = mutate(arrow_file, random.Random("x"))
    m2 = mutate(arrow_file, random.Random("x"))
    assert m1 == m2 and m1[1]
