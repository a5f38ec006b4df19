"""StatisticsDecoder (per-leaf work done once, bounds of some types decoded in pairs) pinned
against decode_statistics, the one-chunk reference path, on random raw statistics; and the
footer walk through the wrappers against pyarrow."""

from __future__ import annotations

import datetime
import decimal
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.metadata.statistics import (
    IEEE_754_TOTAL_ORDER,
    INT96_TIMESTAMP_ORDER,
    TYPE_ORDER,
    UNKNOWN_ORDER,
    StatisticsDecoder,
    decode_statistics,
)
from parquet_core.thrift import pt

_TABLE = pa.table({
    "i8": pa.array([-3, 5], pa.int8()), "i16": pa.array([-300, 7], pa.int16()),
    "u8": pa.array([1, 250], pa.uint8()), "u16": pa.array([1, 65000], pa.uint16()),
    "u32": pa.array([1, 4_000_000_000], pa.uint32()), "u64": pa.array([1, 2**63 + 5], pa.uint64()),
    "i32": pa.array([-1, 2], pa.int32()), "i64": pa.array([-(2**40), 2**40], pa.int64()),
    "f32": pa.array([-1.5, 2.5], pa.float32()), "f64": pa.array([-0.0, 3.25], pa.float64()),
    "s": ["a", "zé"], "b": [b"\x00", b"\xff"], "flag": [True, False],
    "d": pa.array([-5, 19000], pa.date32()),
    "ts_s": pa.array([0, 10**9], pa.timestamp("s")),
    "ts_ms": pa.array([-(10**12), 10**12], pa.timestamp("ms", tz="UTC")),
    "ts_us": pa.array([-(10**15), 10**15], pa.timestamp("us")),
    "ts_ns": pa.array([-(10**18), 10**18 + 7000], pa.timestamp("ns", tz="Europe/Paris")),
    "t32": pa.array([0, 86_399_999], pa.time32("ms")), "t64": pa.array([1000, 86_399_999_999_000], pa.time64("ns")),
    "dec9": pa.array([decimal.Decimal("-1.25"), decimal.Decimal("9.99")], pa.decimal128(9, 2)),
    "dec18": pa.array([decimal.Decimal("-1.250"), decimal.Decimal("123456.789")], pa.decimal128(18, 3)),
    "dec30": pa.array([decimal.Decimal("-1.25"), decimal.Decimal("9.99")], pa.decimal128(30, 2)),
    "fsb": pa.array([b"abc", b"xyz"], pa.binary(3)),
    "f16": pa.array(np.array([-1.0, 2.0], np.float16), pa.float16()),
})


def _file() -> bytes:
    sink = io.BytesIO()
    pq.write_table(_TABLE, sink, row_group_size=1, store_decimal_as_integer=True)
    return sink.getvalue()


_BYTES = _file()
_MD = pc.read_metadata(io.BytesIO(_BYTES))
_DESCS = [_MD.schema.column(j) for j in range(_MD.num_columns)]


def _int96_descs() -> list:
    sink = io.BytesIO()
    pq.write_table(pa.table({"ts96": pa.array([0, 10**15], pa.timestamp("us"))}), sink,
                   use_deprecated_int96_timestamps=True)
    md = pc.read_metadata(io.BytesIO(sink.getvalue()))
    return [md.schema.column(0)]


_DESCS += _int96_descs()   # INT96 bounds count only under INT96_TIMESTAMP_ORDER
_ORDERS = [None, True, False, TYPE_ORDER, IEEE_754_TOTAL_ORDER, INT96_TIMESTAMP_ORDER, UNKNOWN_ORDER]


def _outcome(fn):
    try:
        return ("ok", repr(fn()))   # repr: NaN bounds compare equal this way
    except Exception as exc:  # noqa: BLE001 - the two paths must fail alike
        return ("error", type(exc).__name__, str(exc))


_bound = st.one_of(st.none(), st.sampled_from([0, 1, 2, 3, 4, 8, 12, 13, 16]).flatmap(
    lambda n: st.binary(min_size=n, max_size=n)), st.binary(max_size=20))


@settings(max_examples=1500, deadline=None)
@given(st.integers(0, len(_DESCS) - 1), st.sampled_from(_ORDERS), _bound, _bound, _bound, _bound,
       st.one_of(st.none(), st.integers(0, 10)))
def test_decoder_matches_reference(j, order, lo, hi, legacy_lo, legacy_hi, nulls) -> None:
    desc = _DESCS[j]
    raw = pt.Statistics(min_value=lo, max_value=hi, min=legacy_lo, max=legacy_hi, null_count=nulls)
    want = _outcome(lambda: decode_statistics(raw, desc, order))
    got = _outcome(lambda: StatisticsDecoder(desc, order).decode(raw))
    assert got == want, desc.dotted_path


def test_every_decoder_path_is_exercised() -> None:
    kinds = {(d.dotted_path, StatisticsDecoder(d, TYPE_ORDER)._one is not None,
              StatisticsDecoder(d, TYPE_ORDER)._pair) for d in _DESCS}
    assert any(one for _, one, _ in kinds) and any(pair for _, _, pair in kinds)
    assert {p for p, _, pair in kinds if pair} >= {"ts_us", "t32", "dec9", "dec30", "fsb", "f16", "ts96"}
    # both bounds in one struct call: plain numbers at their storage width, not the narrow ints
    two = {d.dotted_path for d in _DESCS if StatisticsDecoder(d, TYPE_ORDER)._two is not None}
    assert two == {"i32", "i64", "u32", "u64", "f32", "f64"}
    # the walk's shortcut in decode(): those pairs without float rules, where new-style bounds
    # apply (unsigned ones only under column orders); the hypothesis test above pins its values
    plain = {(d.dotted_path, o) for d in _DESCS for o in (TYPE_ORDER, None, IEEE_754_TOTAL_ORDER)
             if StatisticsDecoder(d, o)._plain_two is not None}
    assert plain == {("i32", TYPE_ORDER), ("i64", TYPE_ORDER), ("u32", TYPE_ORDER), ("u64", TYPE_ORDER),
                     ("i32", None), ("i64", None)}


def test_decoder_none_and_reuse() -> None:
    for desc in _DESCS[:_MD.num_columns]:
        dec = StatisticsDecoder(desc, TYPE_ORDER)
        assert dec.decode(None) is None
        for rg in range(_MD.num_row_groups):   # one decoder, every row group's statistics
            raw = _MD.row_group(rg).column(_DESCS.index(desc)).meta.statistics
            assert repr(dec.decode(raw)) == repr(decode_statistics(raw, desc, TYPE_ORDER))


def _plain(v):
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return v


def test_footer_walk_matches_pyarrow() -> None:
    """Every chunk's bounds read through the wrappers (shared per-leaf decoders) equal pyarrow's
    where pyarrow gives them."""
    md = pc.read_metadata(io.BytesIO(_BYTES))
    ref = pq.ParquetFile(io.BytesIO(_BYTES)).metadata
    checked = 0
    for i in range(md.num_row_groups):
        for j in range(md.num_columns):
            ours = md.row_group(i).column(j).statistics
            theirs = ref.row_group(i).column(j).statistics
            name = md.schema.column(j).dotted_path
            if name in ("f16", "fsb", "dec30") or theirs is None or not theirs.has_min_max:
                continue   # pyarrow's own representation differs (bytes / half floats)
            assert ours is not None and ours.null_count == theirs.null_count
            for a, b in ((ours.min, theirs.min), (ours.max, theirs.max)):
                if isinstance(b, bytes) and isinstance(a, str):
                    b = b.decode()
                assert _plain(a) == _plain(b), (name, a, b)
            checked += 1
    assert checked > 20 * md.num_row_groups


def test_statistics_decoders_made_on_first_use_and_shared() -> None:
    # issue 32 (many small files): reading chunks makes no decoder; asking for statistics
    # makes one per leaf, kept in the list every row group's chunks (and every file of the
    # same schema and column orders) share; a chunk keeps none of its own (no __dict__ made)
    sink = io.BytesIO()
    names = ["a_first_use_only_here", "s_first_use_only_here"]    # a schema no other test writes
    pq.write_table(pa.table({names[0]: list(range(100)), names[1]: [str(i) for i in range(100)]}), sink,
                   row_group_size=25)
    md = pc.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    chunks = [md.row_group(g).column(c) for g in range(4) for c in range(2)]
    assert md._stats_decoders == [None, None]
    want = pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    for ch in chunks:
        ref = want.row_group(ch.row_group).column(ch.index).statistics
        assert (ch.statistics.min, ch.statistics.max) == (ref.min, ref.max)
    decs = md._stats_decoders
    assert all(d is not None for d in decs) and decs[0] is not decs[1]
    assert all(ch._stats_decoder is None and "_stats_decoder" not in getattr(ch, "__dict__", {})
               for ch in chunks)
    again = pc.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    assert again._stats_decoders is decs          # another file of the same schema: the same list
    assert again.row_group(3).column(1).statistics.max == "99"


def test_statistics_factory_equals_the_constructor():
    from parquet_core.metadata.statistics import Statistics, _make_statistics

    args = (1, 9, 0, None, b"\x01", b"\x09", True, False, 2, "TYPE_ORDER")
    made = _make_statistics(*args)
    assert type(made) is Statistics
    assert made == Statistics(*args)
    assert hash(made) == hash(Statistics(*args))
    with pytest.raises(AttributeError):
        made.min = 3    # still frozen
