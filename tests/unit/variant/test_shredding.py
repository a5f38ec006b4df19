"""Unshredding by the tables of VariantShredding.md, and the shred -> unshred round trip."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

import parquet_core as pc
from parquet_core.variant import NULL, encode
from parquet_core.variant.encoding import encode_metadata, encode_value
from parquet_core.variant.shredding import shred_row, unshred_rows

UTC = dt.timezone.utc
EMPTY = b"\x01\x00\x00"


def _ts(us: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(microseconds=us)


def test_measurement_table() -> None:
    """The spec's ``34, null, "n/a", 100`` series shredded as int64."""
    layout = pc.variant(pc.int64())
    rows = [
        {"metadata": EMPTY, "value": None, "typed_value": 34},
        {"metadata": EMPTY, "value": b"\x00", "typed_value": None},
        {"metadata": EMPTY, "value": b"\x0dn/a", "typed_value": None},
        {"metadata": EMPTY, "value": None, "typed_value": 100},
        {"metadata": EMPTY, "value": None, "typed_value": None},   # missing: a Variant null
        None,                                                       # SQL NULL
    ]
    assert unshred_rows(rows, layout, "m") == [34, NULL, "n/a", 100, NULL, None]


def test_tags_array_table() -> None:
    layout = pc.variant([pc.string()])
    def el(v, tv):  # noqa: E306
        return {"value": v, "typed_value": tv}
    rows = [
        {"metadata": EMPTY, "value": None, "typed_value": [el(None, "comedy"), el(None, "drama")]},
        {"metadata": EMPTY, "value": None, "typed_value": [el(None, "horror"), el(b"\x00", None)]},
        {"metadata": EMPTY, "value": b"\x00", "typed_value": None},
        {"metadata": EMPTY, "value": None, "typed_value": [el(b"\x0c\x07", None)]},
    ]
    assert unshred_rows(rows, layout, "tags") == [["comedy", "drama"], ["horror", NULL], NULL, [7]]


KEYS = ["click", "email", "error_msg", "event_ts", "event_type"]
META = encode_metadata(KEYS)
IDS = {k: i for i, k in enumerate(KEYS)}
EVENT = pc.variant({"event_type": pc.string(), "event_ts": pc.timestamp("us", utc=True)})


def _row(value: object, typed: dict | None) -> dict:
    return {"metadata": META, "value": None if value is None else encode_value(value, IDS),
            "typed_value": typed}


def _fields(et=(None, None), ts=(None, None)) -> dict:
    def enc(v):
        return v if v is None or isinstance(v, bytes) else encode_value(v, IDS)
    return {"event_type": {"value": enc(et[0]), "typed_value": et[1]},
            "event_ts": {"value": enc(ts[0]), "typed_value": ts[1]}}


def test_event_object_table() -> None:
    """Every valid row of the spec's ``event`` table."""
    t1, t2, t3, t4 = 1729794114937, 1729794146402, 1729794240241, 1729794954163
    rows = [
        _row(None, _fields((None, "noop"), (None, _ts(t1)))),
        _row({"email": "user@example.com"}, _fields((None, "login"), (None, _ts(t2)))),
        _row({"error_msg": "malformed: ..."}, _fields()),
        _row("malformed: not an object", None),
        _row({"click": "_button"}, _fields(ts=(None, _ts(t3)))),
        _row(None, _fields((b"\x00", None), (None, _ts(t4)))),
        _row(None, _fields((None, "noop"), ("2024-10-24", None))),
        _row(None, _fields()),
        _row(NULL, None),
        None,
    ]
    assert unshred_rows(rows, EVENT, "event") == [
        {"event_ts": _ts(t1), "event_type": "noop"},
        {"email": "user@example.com", "event_ts": _ts(t2), "event_type": "login"},
        {"error_msg": "malformed: ..."},
        "malformed: not an object",
        {"click": "_button", "event_ts": _ts(t3)},
        {"event_ts": _ts(t4), "event_type": NULL},
        {"event_ts": "2024-10-24", "event_type": "noop"},
        {},
        NULL,
        None,
    ]


@pytest.mark.parametrize("row, where", [
    # typed_value is an object but value is not
    (_row("a", _fields()), "not an object"),
    # a field with both value and typed_value
    (_row(None, _fields(("x", "y"))), "event_type"),
])
def test_event_invalid_rows(row: dict, where: str) -> None:
    rows = [None, _row(None, _fields()), row]
    with pytest.raises(pc.ParquetFormatError, match=rf"'event', row 2: .*{where}"):
        unshred_rows(rows, EVENT, "event")


def test_shredded_field_also_in_value_reads_typed_value() -> None:
    """VariantShredding.md: ``value`` must never hold a field ``typed_value`` shreds; a reader
    that reads such a row anyway uses ``typed_value``.  Expected values from the
    parquet-testing shredded_variant cases 125 (testPartiallyShreddedObjectFieldConflict: the
    shredded string wins over value's date) and 43 (...MissingFieldConflict: the shredded field
    is missing, so value's copy is dropped too)."""
    from parquet_core.variant.shredding import shredding_conflicts
    conflict = _row({"event_type": "2024-01-30", "email": "a@b"}, _fields((None, "login")))
    missing = _row({"event_type": "2024-01-30", "email": "a@b"}, _fields())
    rows = [_row(None, _fields((None, "ok"))), conflict, missing]
    assert unshred_rows(rows, EVENT, "event") == [
        {"event_type": "ok"}, {"email": "a@b", "event_type": "login"}, {"email": "a@b"}]
    found, bad = shredding_conflicts(rows, EVENT)
    assert bad == 2
    assert found[0][0] and found[0][1].startswith("row 1: (top): field 'event_type' is shredded")
    assert found[1][0] and found[1][1].startswith("row 2: ")
    # rows the read refuses are listed too, as unreadable
    found, bad = shredding_conflicts([_row("a", _fields())], EVENT)
    assert bad == 1 and not found[0][0] and "not an object" in found[0][1]


def test_conflicting_primitive_and_array() -> None:
    with pytest.raises(pc.ParquetFormatError, match=r"'m', row 0: .*both set"):
        unshred_rows([{"metadata": EMPTY, "value": b"\x0c\x01", "typed_value": 5}],
                     pc.variant(pc.int64()), "m")
    with pytest.raises(pc.ParquetFormatError, match=r"'t', row 1: .*array"):
        unshred_rows([None, {"metadata": EMPTY, "value": b"\x00", "typed_value": []}],
                     pc.variant([pc.string()]), "t")


def test_bad_bytes_name_column_and_row() -> None:
    with pytest.raises(pc.ParquetFormatError, match=r"'v', row 1: malformed variant"):
        unshred_rows([{"metadata": EMPTY, "value": b"\x00"}, {"metadata": EMPTY, "value": b"\x0c"}],
                     pc.variant(), "v")


def test_shred_row_splits_by_type() -> None:
    row = shred_row({"event_type": "signup", "event_ts": "late", "x": [1]}, EVENT)
    assert row["typed_value"]["event_type"] == {"value": None, "typed_value": "signup"}
    assert row["typed_value"]["event_ts"]["typed_value"] is None
    assert row["typed_value"]["event_ts"]["value"] is not None
    assert row["value"] is not None       # {"x": [1]} stays in value
    assert shred_row(None, EVENT) is None
    assert shred_row(NULL, EVENT) == {"metadata": encode(NULL)[0], "value": b"\x00", "typed_value": None}


LAYOUTS = [
    pc.variant(),
    pc.variant(pc.int64()),
    pc.variant(pc.string()),
    pc.variant(pc.decimal(9, 2)),
    pc.variant([pc.int8()]),
    pc.variant({"a": pc.int32(), "b": [pc.string()], "c": {"d": pc.float64()}}),
    pc.variant({"t": pc.timestamp("ns", utc=False), "u": pc.uuid(), "z": pc.date()}),
]

_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 70), 2 ** 70), st.floats(allow_nan=False),
                  st.decimals(places=2, allow_nan=False, allow_infinity=False,
                              min_value=Decimal(-10 ** 7), max_value=Decimal(10 ** 7)),
                  st.text(max_size=5), st.dates(), st.datetimes(), st.uuids())
_keys = st.sampled_from(["a", "b", "c", "d", "t", "u", "z", "q"])
_vals = st.recursive(_leaf, lambda k: st.one_of(st.lists(k, max_size=4),
                                                st.dictionaries(_keys, k, max_size=5)), max_leaves=15)


def _expected(v):
    if v is None:
        return NULL
    if isinstance(v, list):
        return [_expected(x) for x in v]
    if isinstance(v, dict):
        return {k: _expected(x) for k, x in v.items()}
    return v


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_vals, st.sampled_from(range(len(LAYOUTS))))
def test_shred_unshred_round_trip(v, which) -> None:
    layout = LAYOUTS[which]
    v = NULL if v is None else v
    assert unshred_rows([shred_row(v, layout)], layout, "v") == [_expected(v)]
