"""The record assembler (shared masks, ``numpy.compress``, narrow element counts) pinned
against the straightforward reference assembler, array for array.

* random levels (most of them malformed) for hand-written schemas covering
  3-level and legacy 2-level lists, unannotated repeated fields, lists of
  lists, structs of lists, maps with null values and required-only groups:
  both assemblers give equal arrays or raise the same error;
* random nested tables written by pyarrow, read through the whole reader
  with every assembly checked against the reference (and the table against
  pyarrow's reading).
"""

from __future__ import annotations

import io
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parquet_core as pc
import parquet_core.table.assemble as asm
import parquet_core.table.leaves as leaves
from parquet_core._kernels.binary import ByteArrays
from parquet_core.column.data import ColumnData
from parquet_core.constants import ConvertedType, PhysicalType, Repetition
from parquet_core.errors import ParquetError, ParquetFormatError
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.nested import build_shape
from parquet_core.table.arrays import Array
from parquet_core.table.nested import ListArray, StructArray
from parquet_core.thrift import pt
from tests.unit.table.reference_assemble import reference_assemble

OPT, REP, REQ = Repetition.OPTIONAL, Repetition.REPEATED, Repetition.REQUIRED
I32, I64, BA = PhysicalType.INT32, PhysicalType.INT64, PhysicalType.BYTE_ARRAY
LIST, MAP, UTF8 = ConvertedType.LIST, ConvertedType.MAP, ConvertedType.UTF8


def _el(name, rep, type=None, children=None, ct=None):  # type: ignore[no-untyped-def]
    return pt.SchemaElement(name=name, type=type, repetition_type=rep, num_children=children,
                            converted_type=ct)


# each schema: the elements below the root, depth first (one top-level field)
SCHEMAS: dict[str, list[Any]] = {
    "list3": [_el("a", OPT, children=1, ct=LIST), _el("list", REP, children=1), _el("element", OPT, I32)],
    "list2_legacy": [_el("a", OPT, children=1, ct=LIST), _el("element", REP, I32)],
    "repeated_leaf": [_el("x", REP, I64)],
    "repeated_group": [_el("r", REP, children=2), _el("x", REQ, I32), _el("y", REP, I32)],
    "struct_of_list": [_el("s", OPT, children=2), _el("x", OPT, I64),
                       _el("l", OPT, children=1, ct=LIST), _el("list", REP, children=1),
                       _el("element", OPT, BA, ct=UTF8)],
    "map": [_el("m", OPT, children=1, ct=MAP), _el("key_value", REP, children=2),
            _el("key", REQ, BA, ct=UTF8), _el("value", OPT, I32)],
    "list_of_list": [_el("a", OPT, children=1, ct=LIST), _el("list", REP, children=1),
                     _el("element", OPT, children=1, ct=LIST), _el("list", REP, children=1),
                     _el("element", REQ, I64)],
    "list_of_struct": [_el("a", REQ, children=1, ct=LIST), _el("list", REP, children=1),
                       _el("element", OPT, children=2), _el("p", OPT, I32), _el("q", REQ, BA)],
    "required_struct": [_el("s", REQ, children=2), _el("x", REQ, I32), _el("y", OPT, I32)],
}


def _schema(name: str):  # type: ignore[no-untyped-def]
    d = SchemaDescriptor([_el("m", REQ, children=1)] + SCHEMAS[name])
    return build_shape(d.root.children[0], d.leaf_of, lambda i: d.column(i).data_type), d


def _values(physical: int, k: int) -> Any:
    if physical == BA:
        return ByteArrays.from_pylist([b"v" * (i % 3) + str(i).encode() for i in range(k)])
    return np.arange(k, dtype=np.int32 if physical == I32 else np.int64) * 7


def same_array(a: Array, b: Array, where: str = "") -> None:
    """Structural equality: classes, types, lengths, validity, offsets, children, buffers."""
    assert type(a) is type(b), where
    assert a.type == b.type, where
    assert len(a) == len(b), where
    if a.validity is None or b.validity is None:
        assert a.validity is None and b.validity is None, f"{where}: validity {a.validity} vs {b.validity}"
    else:
        assert np.array_equal(a.validity, b.validity), f"{where}: validity"
    if isinstance(a, ListArray):
        assert a.offsets.dtype == b.offsets.dtype == np.int64, where
        assert np.array_equal(a.offsets, b.offsets), f"{where}: offsets"
        same_array(a.values, b.values, where + "[]")
    elif isinstance(a, StructArray):
        assert a.column == b.column, where
        assert len(a.values) == len(b.values), where
        for i, (x, y) in enumerate(zip(a.values, b.values)):
            same_array(x, y, f"{where}.{i}")
    elif isinstance(a.values, ByteArrays):
        assert isinstance(b.values, ByteArrays), where
        assert np.array_equal(a.values.lengths(), b.values.lengths()), f"{where}: lengths"
        lo_a, hi_a = int(a.values.offsets[0]), int(a.values.offsets[-1])
        lo_b, hi_b = int(b.values.offsets[0]), int(b.values.offsets[-1])
        assert a.values.data[lo_a:hi_a].tobytes() == b.values.data[lo_b:hi_b].tobytes(), where
    else:
        assert a.values.dtype == b.values.dtype and a.values.shape == b.values.shape, where
        assert a.values.tobytes() == b.values.tobytes(), f"{where}: values"


def _outcome(fn, *args) -> Any:  # type: ignore[no-untyped-def]
    try:
        return fn(*args)
    except ParquetError as exc:
        return exc


def check_same(shape, data, descs) -> Any:  # type: ignore[no-untyped-def]
    fast = _outcome(asm.assemble, shape, data, descs)
    ref = _outcome(reference_assemble, shape, data, descs)
    if isinstance(ref, Exception) or isinstance(fast, Exception):
        assert type(fast) is type(ref) and str(fast) == str(ref), (fast, ref)
    else:
        same_array(fast, ref, shape.name)
    return fast


def _rep_defs(shape, out=None, at=None):  # type: ignore[no-untyped-def]
    """For each leaf: {repetition level: definition level of the field it repeats}."""
    out = {} if out is None else out
    at = {} if at is None else at
    if shape.kind == "leaf":
        out[shape.column] = dict(at)
        if shape.slot_rep and shape.slot_rep not in at:     # a repeated leaf repeats itself
            out[shape.column][shape.slot_rep] = shape.slot_def
        return out
    inner = dict(at)
    if shape.kind in ("list", "map"):
        inner[shape.slot_rep + 1] = shape.elem_def
    for c in shape.children:
        _rep_defs(c, out, inner)
    return out


def _wellformed(draw, n: int, max_def: int, rep_def: dict) -> tuple[list[int], list[int]]:  # type: ignore[no-untyped-def]
    """Levels a writer could produce for one leaf: an entry repeats only a field that the
    previous entry defined, and then defines at least that field."""
    reps: list[int] = []
    defs: list[int] = []
    for i in range(n):
        if i == 0:
            r = 0
        else:
            open_ = [k for k, d in rep_def.items() if defs[-1] >= d]
            r = draw(st.sampled_from([0] + open_))
        lo = rep_def.get(r, 0) if r else 0
        reps.append(r)
        defs.append(draw(st.integers(lo, max_def)))
    return reps, defs


@st.composite
def leaf_levels(draw, name: str):  # type: ignore[no-untyped-def]
    """Random levels for every leaf of a schema, well-formed or not.

    Well-formed: one leaf with the most repetition drives the structure and its
    siblings take its levels capped at their own maxima (right for maps and
    structs of equally repeated leaves).  Otherwise: a shared random repetition
    structure and definition levels drawn per leaf, mostly capped from a shared draw.
    Value counts mostly match the levels.
    """
    shape, d = _schema(name)
    n = draw(st.integers(0, 40))
    max_rep = max(d.column(i).max_repetition_level for i in shape.leaves)
    top = max(d.column(i).max_definition_level for i in shape.leaves)
    if draw(st.booleans()):
        driver = max(shape.leaves, key=lambda i: (d.column(i).max_repetition_level,
                                                   d.column(i).max_definition_level))
        r, b = _wellformed(draw, n, d.column(driver).max_definition_level, _rep_defs(shape)[driver])
        reps, base = np.asarray(r, np.int16), b
        mixed = False
    else:
        reps = np.asarray(draw(st.lists(st.integers(0, max_rep), min_size=n, max_size=n)), np.int16)
        if n and draw(st.booleans()):
            reps[0] = 0
        base = draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
        mixed = True
    data = {}
    for i in shape.leaves:
        desc = d.column(i)
        if not mixed or draw(st.booleans()):
            defs = np.minimum(np.asarray(base, np.int16), desc.max_definition_level).astype(np.int16)
        else:
            defs = np.asarray(draw(st.lists(st.integers(0, desc.max_definition_level), min_size=n,
                                            max_size=n)), np.int16)
        k = int(np.count_nonzero(defs == desc.max_definition_level)) if desc.max_definition_level \
            else n
        k += draw(st.sampled_from([0, 0, 0, 0, 0, 0, 1, -1])) if k else 0
        data[i] = ColumnData(_values(desc.physical_type, k),
                             defs if desc.max_definition_level else None,
                             reps[:n].copy() if desc.max_repetition_level else None, n)
    return shape, d, data


@settings(max_examples=400, deadline=None, derandomize=True)
@given(case=st.sampled_from(sorted(SCHEMAS)).flatmap(leaf_levels))
def test_random_levels_match_reference(case) -> None:  # type: ignore[no-untyped-def]
    shape, d, data = case
    check_same(shape, data, d.columns)


def test_worked_cases_match_reference() -> None:
    # null list, empty list, [null, 7], [8]: valid levels with every kind of slot
    shape, d = _schema("list3")
    data = {0: ColumnData(np.asarray([7, 8], np.int32), np.asarray([0, 1, 2, 3, 3], np.int16),
                          np.asarray([0, 0, 0, 1, 0], np.int16), 5)}
    arr = check_same(shape, data, d.columns)
    assert arr.to_pylist() == [None, [], [None, 7], [8]]
    # a map with a null map, an empty map and a null value
    shape, d = _schema("map")
    keys = ByteArrays.from_pylist([b"a", b"b", b"c"])
    data = {0: ColumnData(keys, np.asarray([0, 1, 2, 2, 2], np.int16),
                          np.asarray([0, 0, 0, 1, 0], np.int16), 5),
            1: ColumnData(np.asarray([5, 6], np.int32), np.asarray([0, 1, 3, 2, 3], np.int16),
                          np.asarray([0, 0, 0, 1, 0], np.int16), 5)}
    arr = check_same(shape, data, d.columns)
    assert arr.to_pylist() == [None, [], [("a", 5), ("b", None)], [("c", 6)]]
    # list of lists: [[1, 2], [], null], null, [], [[3]]
    shape, d = _schema("list_of_list")
    data = {0: ColumnData(np.asarray([1, 2, 3], np.int64), np.asarray([4, 4, 3, 2, 0, 1, 4], np.int16),
                          np.asarray([0, 2, 1, 1, 0, 0, 0], np.int16), 7)}
    arr = check_same(shape, data, d.columns)
    assert arr.to_pylist() == [[[1, 2], [], None], None, [], [[3]]]


def test_offsets_wide_counts_match_narrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The int64 element counts (used past 2**31 level entries) give the same offsets."""
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 17, 300):
        slots = rng.random(n) < 0.4
        elems = rng.random(n) < 0.7
        for s in (None, slots):
            at = None if s is None else np.flatnonzero(s)
            for e in (None, elems):
                narrow = asm._Assembler.offsets(at, e, n)
                monkeypatch.setattr(asm, "_NARROW_COUNTS", 0)
                wide = asm._Assembler.offsets(at, e, n)
                monkeypatch.undo()
                starts = np.arange(n) if s is None else np.flatnonzero(s)
                seen = np.concatenate([[0], np.cumsum(np.ones(n, bool) if e is None else e)])
                expect = np.append(seen[starts], seen[-1])
                assert narrow.dtype == wide.dtype == np.int64
                assert narrow.tolist() == wide.tolist() == expect.tolist()


def test_level_arrays_shorter_than_the_slots_are_a_format_error() -> None:
    shape, d = _schema("list3")
    data = {0: ColumnData(np.asarray([7], np.int32), np.asarray([3, 3], np.int16),
                          np.asarray([0], np.int16), 2)}
    with pytest.raises(ParquetFormatError, match="repetition levels"):
        asm.assemble(shape, data, d.columns)


# -- whole files written by pyarrow -----------------------------------------------------
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
from tests._support.nested_tables import arrow_types, random_table  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(types=st.lists(st.tuples(arrow_types(3), st.booleans()), min_size=1, max_size=3),
       n=st.integers(0, 200), seed=st.integers(0, 2**32), null_p=st.sampled_from([0.0, 0.2, 0.6]),
       version=st.sampled_from(["1.0", "2.0"]), page_size=st.sampled_from([64, 1 << 20]))
def test_random_files_assemble_as_reference(types, n, seed, null_p, version, page_size) -> None:
    table = random_table(types, n, seed, null_p)
    buf = io.BytesIO()
    pq.write_table(table, buf, data_page_version=version, data_page_size=page_size,
                   row_group_size=max(n // 2, 1))
    data = buf.getvalue()
    calls = []

    def both(shape, leaf_data, descs):  # type: ignore[no-untyped-def]
        calls.append(shape.name)
        return check_same(shape, leaf_data, descs)

    with mock.patch.object(leaves, "assemble", both):
        ours = pc.read_table(data, use_threads=False)
    if any(pa.types.is_nested(t) for t, _ in types):
        assert calls, "no field went through assembly"
    theirs = pq.read_table(io.BytesIO(data))
    if theirs.num_rows == n:    # pyarrow 26 misreads a few of its own files (test_hypothesis_nested)
        mine = ours.to_arrow()
        for name in theirs.column_names:
            assert mine.column(name).to_pylist() == theirs.column(name).to_pylist(), name
