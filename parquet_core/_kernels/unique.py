"""Group equal integer keys, numbering the groups in order of first appearance.

``first_occurrence_codes([30, 10, 30, 20, 10])`` ->
``first_rows = [0, 1, 3]`` (where 30, 10 and 20 first appear) and
``codes = [0, 1, 0, 2, 1]``.  This is the core of dictionary building:
``keys[first_rows]`` are the distinct values in first-appearance order and
``codes`` the index of every row's value, so any prefix of the rows uses a
prefix of the distinct values.

Two vectorised strategies, both linear in the number of keys:

* **direct table** when the keys span a small range (at most a few times
  their count): slot ``key - min`` of a table gets the smallest row holding
  that key (``np.minimum.at``, a single unbuffered pass);
* **open-addressing hash table** otherwise: all pending keys probe their
  slot together, each empty slot is claimed by the smallest pending row
  that probes it (``np.minimum.at`` again), every key compares itself with
  its slot's owner, and the keys that lost move to the next slot (linear
  probing).  Equal keys always travel together, so the owner a key settles
  on is the first row holding it.  The table is kept at most half full,
  so the rounds shrink fast (a few dozen for a million random keys, most
  of them touching a handful of keys).

``np.unique`` (sorting, O(n log n)) was measured 3-8x slower than these
for 10^6 keys, mostly because ``return_inverse`` needs an argsort.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["first_occurrence_codes", "narrow_code_dtype", "narrowed_codes"]

#: The direct table is used when max - min + 1 <= this factor x count (or tiny).
_DIRECT_SPAN_FACTOR = 4
_DIRECT_SPAN_MIN = 1 << 16
#: Spans up to this size take :func:`_direct_small` (key -> code table of this many int32).
_SMALL_SPAN = 1 << 16
#: Rows :func:`_direct_small` looks up per block (its key offsets for them, 512 KiB).
_SMALL_BLOCK = 1 << 16
_PREFIX_START = 4096
_FIB = np.uint64(0x9E3779B97F4A7C15)
_EMPTY = np.int32(2**31 - 1)
_START_BITS = 12
#: Rows inserted per step of the hash path (smaller steps when a budget may stop it).
_HASH_CHUNK = 1 << 16
_BUDGET_CHUNK = 1 << 14


def first_occurrence_codes(keys: Any, *, costs: Any = None, budget: int | None = None,
                           spread: bool = False, narrow: bool = False
                           ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    """Return the first row of every distinct key and each row's group code.

    Parameters
    ----------
    keys:
        1-D array of integers (callers map floats, strings, ... to integer
        keys first; equal keys must mean equal values).
    costs, budget:
        Optional early stop: ``costs`` is one number per key (or a scalar),
        and once the groups found so far cost more than ``budget`` in total
        the hash path stops after its current step.  The result then covers
        only a prefix of the rows (``len(codes) <= len(keys)``), one that
        already passes the budget.  A dictionary writer uses this to stop
        hashing soon after its size limit.
    spread:
        A hint that the keys' range is likely far wider than their count
        (the bit patterns of floating point values): the table for few
        distinct keys is tried before the keys' minimum and maximum are
        found (two passes over them that would only rule out the direct
        table).  The result is the same either way.
    narrow:
        Return the codes in the narrowest type that holds them
        (:func:`narrow_code_dtype` of the number of groups: uint8 for at
        most 256 groups, uint16 for at most 65,536, else int32) instead of
        int32.  The values are the same; a few strategies make byte codes
        directly, and a dictionary index encoder packs narrow codes without
        first narrowing a copy of them.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray]
        ``first_rows`` (int64, increasing) and ``codes`` (int32 unless
        *narrow*, one per key, ``codes[first_rows] == arange(len(first_rows))``).
    """
    first, codes = _grouped(keys, costs, budget, spread, narrow)
    return first, narrowed_codes(codes, first.size) if narrow else codes


def narrow_code_dtype(groups: int) -> np.dtype[Any]:
    """The narrowest type for codes ``0..groups-1``: uint8, uint16, else int32."""
    return np.dtype(np.uint8 if groups <= 1 << 8 else np.uint16 if groups <= 1 << 16 else np.int32)


def narrowed_codes(codes: npt.NDArray[Any], groups: int) -> npt.NDArray[Any]:
    """*codes* (each in ``0..groups-1``) in :func:`narrow_code_dtype` of *groups*
    (the array itself when it already has that type)."""
    dt = narrow_code_dtype(groups)
    return codes if codes.dtype == dt else codes.astype(dt)


def _grouped(keys: Any, costs: Any, budget: int | None, spread: bool,
             narrow: bool) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    """:func:`first_occurrence_codes`; with *narrow*, some strategies may return
    codes already narrowed (the others int32)."""
    k = np.asarray(keys).reshape(-1)
    if k.dtype.kind not in "iub":
        raise TypeError(f"first_occurrence_codes needs integer keys, not {k.dtype}")
    n = k.size
    if n >= 2**31 - 1:
        raise ValueError("first_occurrence_codes: at most 2**31 - 2 keys")
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    tried_few = spread and n > 2 * _PREFIX_START
    if tried_few:
        few = _few_keys(k, costs, budget, narrow)
        if few is not None:
            return few
    lo, hi = int(k.min()), int(k.max())
    span = hi - lo + 1
    if span <= max(_DIRECT_SPAN_FACTOR * n, _DIRECT_SPAN_MIN):
        return _direct(k, lo, span, costs, budget, narrow)
    if n > 2 * _PREFIX_START and not tried_few:
        few = _few_keys(k, costs, budget, narrow)
        if few is not None:
            return few
    return _hashed(k, costs, budget)


def _direct(k: npt.NDArray[Any], lo: int, span: int, costs: Any = None,
            budget: int | None = None, narrow: bool = False) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    n = k.size
    if budget is not None and span * float(costs if np.ndim(costs) == 0 else np.max(costs)) <= budget:
        # even every key of the span could not pass the budget: no early stop possible
        budget = None
    if budget is None and span <= _SMALL_SPAN and n > _PREFIX_START:
        return _direct_small(k, lo, span, narrow)
    # key - min fits the span; computed in 64 bits without overflow, into one new array
    # (no widened copy of the keys first: each would be as large as the result)
    if k.dtype.kind == "u":
        off = np.subtract(k, np.uint64(lo), dtype=np.uint64).view(np.int64)
    else:
        off = np.subtract(k, np.int64(lo), dtype=np.int64)
    first = np.full(span, n, dtype=np.int64)
    if budget is None:
        np.minimum.at(first, off, np.arange(n, dtype=np.int64))
    else:
        # rows in steps, in order, as in _hashed: a key's first row is final once
        # its step is done, and the steps stop once the new keys pass the budget
        scalar_cost = np.ndim(costs) == 0
        mean_cost = max(float(costs) if scalar_cost else float(np.mean(costs)), 1e-9)
        spent = 0
        at = 0
        while at < n:
            # as many rows as could still fit if all were new, or (keys repeating)
            # as many as done so far: a few steps whatever the count
            hi = min(n, at + max(_BUDGET_CHUNK, int((budget - spent) / mean_cost) + 1, at))
            rows = np.arange(at, hi, dtype=np.int64)
            np.minimum.at(first, off[at:hi], rows)
            new = rows[first[off[at:hi]] == rows]
            spent += new.size * int(costs) if scalar_cost else int(np.asarray(costs)[new].sum())
            at = hi
            if spent > budget:
                break
        n, off = at, off[:at]
    owner = first[off]
    del off, first   # not held while the codes are numbered
    return _number(None, owner, n)


def _direct_small(k: npt.NDArray[Any], lo: int, span: int,
                  narrow: bool = False) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    """The direct table for a small span: first rows found in a prefix.

    The first rows are looked for in a prefix of the rows (``np.minimum.at``),
    a key -> code table is built from them (-1 for keys not seen yet) and
    every row is looked up in it.  A low-cardinality column has most of its
    keys in its first few thousand rows, so this is one gather over the rows
    instead of an ``np.minimum.at`` and a running count over all of them.
    Rows whose key the prefix did not hold (rare values first seen later,
    as in a skewed column) are then settled on their own: every such key
    first appears past the prefix, so the new keys follow the prefix's in
    first-appearance order, numbered by their first row among those rows
    alone (no second pass over the whole column).  ``key - lo`` is taken in
    the keys' own dtype: it lies in ``0..span-1``, so a wrapping subtraction
    gives it exactly.  With *narrow* and a span under 256 the codes stay the
    bytes of the translation (fewer than 256 groups: uint8 is their narrow type),
    and for a span up to 2**16 the lookup table and the codes are uint16.
    """
    n = k.size
    m = min(n, _PREFIX_START)
    off = _key_offsets(k[:m], lo)
    first = np.full(span, n, dtype=np.int64)
    np.minimum.at(first, off, np.arange(m, dtype=np.int64))
    firsts = np.sort(first[first < n])
    # narrow codes of a span up to 2**16 are uint16, 0xFFFF marking a key not seen yet
    # (the prefix's keys, the only ones looked up before the late rows are settled,
    # have codes below _PREFIX_START); else int32 and -1
    code_dtype = np.dtype(np.uint16 if narrow and span <= 1 << 16 else np.int32)
    unseen = 0xFFFF if code_dtype == np.uint16 else -1
    code_of_key = np.full(span, unseen, dtype=code_dtype)
    code_of_key[off[firsts]] = np.arange(firsts.size, dtype=code_dtype)
    if span < 256:
        # key offsets and codes fit a byte each (255, above every code, marks a key not
        # seen yet): one byte-to-byte translation in C over the column, no index array
        # (np.take would first widen the offsets to intp)
        table = bytes(code_of_key.astype(np.uint8)) + bytes([255]) * (256 - span)
        # k - lo lies in 0..span-1, so the subtraction modulo 256 gives it exactly
        off8 = np.subtract(k, np.uint8(lo & 0xFF), dtype=np.uint8, casting="unsafe")
        codes8 = np.frombuffer(off8.tobytes().translate(table), dtype=np.uint8)
        del off8
        codes: npt.NDArray[Any] = codes8 if narrow else codes8.astype(np.int32)
        if m == n or firsts.size == span:
            return firsts, codes
        late = np.flatnonzero(codes8 == 255)
        if late.size and narrow:
            codes = codes8.copy()   # (frombuffer of bytes is read-only; late codes go in below)
    else:
        codes = np.empty(n, dtype=code_dtype)
        # looked up block by block: a block's key offsets are all that is made besides
        # the codes (the whole column's would be as large as the keys)
        for at in range(0, n, _SMALL_BLOCK):
            stop = min(n, at + _SMALL_BLOCK)
            code_of_key.take(_key_offsets(k[at:stop], lo), out=codes[at:stop])
        if m == n or firsts.size == span:
            # (every key of the span already seen in the prefix: no row can be late)
            return firsts, codes
        late = np.flatnonzero(codes == unseen)
    if late.size == 0:
        return firsts, codes
    # the late rows' keys, grouped among the late rows alone (increasing rows, so
    # a key's first late row is its first row in the column)
    late_off = _key_offsets(k[late], lo)
    where = np.full(span, late.size, dtype=np.int64)
    np.minimum.at(where, late_off, np.arange(late.size, dtype=np.int64))
    new_first = np.sort(where[where < late.size])        # positions within ``late``
    code_of_key[late_off[new_first]] = np.arange(firsts.size, firsts.size + new_first.size,
                                                  dtype=code_dtype)
    codes[late] = code_of_key.take(late_off)
    return np.concatenate((firsts, late[new_first].astype(np.int64))), codes


def _key_offsets(k: npt.NDArray[Any], lo: int) -> npt.NDArray[Any]:
    """``k - lo`` for keys of a span starting at *lo*, as indexes into the span's tables.

    Taken in the keys' own dtype: it lies in ``0..span-1``, so a wrapping
    subtraction gives it exactly.  Narrow keys widen exactly to intp in the
    same pass, so a gather takes the result as it is (a narrower index is
    first copied to intp)."""
    if k.dtype.kind in "iu" and k.dtype.itemsize < 8:
        return np.subtract(k, lo, dtype=np.intp)
    return k - k.dtype.type(lo)


#: At most this many distinct keys in the first rows try :func:`_few_keys`.
_FEW_MAX = 512
#: Rows looked up per block of :func:`_few_keys` (its scratch stays in cache).
_FEW_BLOCK = 1 << 15
#: Odd multipliers tried, in order, for a collision-free slot of every key of :func:`_few_keys`.
_FEW_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                    0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)


def _few_keys(k: npt.NDArray[Any], costs: Any, budget: int | None,
              narrow: bool = False) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]] | None:
    """Keys of a wide range but few distinct values (doubles of a low-cardinality
    column), or None.

    The distinct keys of the first :data:`_PREFIX_START` rows, numbered by
    first appearance, get a slot each in a small table under a multiplicative
    hash chosen so that no two share one.  Every row is then looked up by
    block: its slot's key must be its own (a slot no key owns holds a key
    that hashes elsewhere, so it never matches).  A row whose key is not in
    the table (a value first seen later) gives up: None, and the caller
    groups the keys in general.  When every row matches, each key's first
    row lies in the prefix, so the prefix's first-appearance order is the
    whole column's.  With *narrow* the codes are made in their narrow type.
    """
    n = k.size
    head = k[:_PREFIX_START]
    distinct, first_in_head = np.unique(head, return_index=True)
    d = distinct.size
    if d > _FEW_MAX:
        return None
    order = np.argsort(first_in_head, kind="stable")
    firsts = first_in_head[order].astype(np.int64)
    if budget is not None:
        spent = d * float(costs) if np.ndim(costs) == 0 else float(np.asarray(costs)[firsts].sum())
        if spent > budget:
            return None          # may have to stop early: the general path's business
    as_u64 = (lambda a: a) if k.dtype == np.uint64 else \
        (lambda a: a.astype(np.int64, copy=False).view(np.uint64))
    entry_keys = as_u64(distinct[order])
    bits = max(4, (4 * d - 1).bit_length())
    shift = np.uint64(64 - bits)
    for mult in _FEW_MULTIPLIERS:
        mul = np.uint64(mult)
        slots = (entry_keys * mul) >> shift
        if np.unique(slots).size == d:
            break
    else:
        return None
    slot_key = np.full(1 << bits, entry_keys[0], dtype=np.uint64)
    code_dtype = narrow_code_dtype(d) if narrow else np.dtype(np.int32)
    slot_code = np.zeros(1 << bits, dtype=code_dtype)
    slot_key[slots.astype(np.intp)] = entry_keys
    slot_code[slots.astype(np.intp)] = np.arange(d, dtype=code_dtype)
    codes = np.empty(n, dtype=code_dtype)
    buf = np.empty(min(n, _FEW_BLOCK), dtype=np.uint64)
    for lo in range(0, n, _FEW_BLOCK):
        hi = min(n, lo + _FEW_BLOCK)
        kb = as_u64(k[lo:hi])
        sb = buf[:hi - lo]
        np.multiply(kb, mul, out=sb)
        np.right_shift(sb, shift, out=sb)
        at = sb.view(np.int64)
        if not np.array_equal(slot_key.take(at), kb):
            return None
        slot_code.take(at, out=codes[lo:hi])
    return firsts, codes


class _Table:
    """Open-addressing table of first rows (keys looked up by row), grown by doubling."""

    def __init__(self, bits: int, keys: npt.NDArray[np.uint64]) -> None:
        self.bits = bits
        self.rows = np.full(1 << bits, _EMPTY, dtype=np.int32)
        self.all_keys = keys
        self.used = 0
        self._probe: tuple[int, npt.NDArray[np.uint64], npt.NDArray[np.bool_]] | None = None

    def insert(self, rows: npt.NDArray[np.int32], owner: npt.NDArray[np.int32] | None) -> None:
        """Look up or add the keys of ``rows``; record each row's owner if asked.

        One round per probe step, over the rows still looking.  A free slot
        goes to the smallest row probing it (``np.minimum.at``); equal keys
        probe together, so a key's owner is its first row.
        """
        keys = self.all_keys[rows]
        slot = ((keys * _FIB) >> np.uint64(64 - self.bits)).astype(np.intp)
        wrap = (1 << self.bits) - 1
        while rows.size:
            cur = self.rows[slot]
            free = cur == _EMPTY
            if free.any():
                fs = slot[free]
                np.minimum.at(self.rows, fs, rows[free])
                claimed = self.rows[fs]
                cur[free] = claimed
                self.used += int(np.count_nonzero(claimed == rows[free]))
            hit = self.all_keys[cur] == keys
            if owner is not None:
                owner[rows[hit]] = cur[hit]
            miss = ~hit
            rows, keys = rows[miss], keys[miss]
            slot = (slot[miss] + 1) & wrap

    def lookup(self, lo: int, hi: int, owner: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
        """Settle rows ``lo:hi`` whose key sits in its home slot; return the others.

        One probe per row against the keys already in the table, on
        contiguous slices (no row gathers): the common case of a column
        whose distinct values all appeared early.  Rows whose key is new or
        was displaced by linear probing are returned for :meth:`insert`.
        """
        keys = self.all_keys[lo:hi]
        slot = ((keys * _FIB) >> np.uint64(64 - self.bits)).astype(np.intp)
        table = self.rows
        if self._probe is None or self._probe[0] != self.used:
            # the key held by each slot (a zero key in empty ones, never trusted),
            # rebuilt only when entries were added since the last lookup
            occupied = table != _EMPTY
            slot_keys = np.zeros(table.size, dtype=np.uint64)
            slot_keys[occupied] = self.all_keys[table[occupied]]
            self._probe = (self.used, slot_keys, occupied)
        _, slot_keys, occupied = self._probe
        cur = table[slot]
        hit = slot_keys[slot] == keys
        hit &= occupied[slot]
        owner[lo:hi] = cur          # misses are overwritten by insert()
        if hit.all():
            return np.zeros(0, dtype=np.int32)
        return np.flatnonzero(~hit).astype(np.int32) + np.int32(lo)

    def resized(self, bits: int) -> _Table:
        """A table of ``2**bits`` slots holding the same entries."""
        bigger = _Table(bits, self.all_keys)
        bigger.insert(self.rows[self.rows != _EMPTY], None)
        return bigger


def _hashed(k: npt.NDArray[Any], costs: Any = None,
            budget: int | None = None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    n = k.size
    key = k if k.dtype == np.uint64 else k.astype(np.int64, copy=False).view(np.uint64)
    owner = np.empty(n, dtype=np.int32)
    if budget is not None:
        scalar_cost = np.ndim(costs) == 0
        mean_cost = max(float(costs) if scalar_cost else float(np.mean(costs)), 1e-9)
    table = _Table(max(_START_BITS, (2 * min(n, _HASH_CHUNK) - 1).bit_length()), key)
    # Rows go in chunks, in order; before each chunk the table doubles until
    # it would stay at most half full even if every row were new.  So it
    # tracks the distinct keys seen so far instead of the row count, and a
    # typical dictionary's few hot slots stay in cache.
    # Mostly-distinct keys (a quarter or more new so far) take the rest in
    # one step instead of many small ones.  Under a budget a step covers as
    # many rows as could still fit if they were all new (at least
    # _BUDGET_CHUNK): distinct keys stop right after their first step.
    spent = 0
    lo = 0
    while lo < n:
        if budget is not None:
            hi = min(n, lo + max(_BUDGET_CHUNK, int((budget - spent) / mean_cost) + 1))
        else:
            hi = min(n, lo + _HASH_CHUNK) if 4 * table.used < lo or lo == 0 else n
        if table.used and lo and (1 << table.bits) <= 4 * (hi - lo):
            # most rows repeat a key already in the table: settle those with one
            # probe, then insert the rest as usual
            rows = table.lookup(lo, hi, owner)
        else:
            rows = np.arange(lo, hi, dtype=np.int32)
        need = 2 * (table.used + rows.size)
        if (1 << table.bits) < need:
            table = table.resized((need - 1).bit_length())
        if rows.size:
            table.insert(rows, owner)
        lo = hi
        if budget is not None:
            new = rows[owner[rows] == rows]
            spent += new.size * int(costs) if scalar_cost else int(np.asarray(costs)[new].sum())
            if spent > budget:
                n, owner = lo, owner[:lo]
                break
    if 8 * table.used <= n:
        # few keys: the table holds exactly the first rows (all below n, also
        # after a budget stop); sorting them beats a pass over every row
        return _number(np.sort(table.rows[table.rows != _EMPTY]).astype(np.int64), owner, n)
    return _number(None, owner, n)


def _number(firsts: npt.NDArray[np.int64] | None, owner: npt.NDArray[Any],
            n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """Codes in first-appearance order from each row's owner (its key's first row).

    With ``firsts`` (the sorted first rows) only those get a code written,
    their rank, and every row reads its owner's.  Without, the first rows
    are marked and a running count of marks numbers them.
    """
    if firsts is None:
        is_first = np.zeros(n, dtype=np.bool_)
        is_first[owner] = True
        code_of_row = np.cumsum(is_first, dtype=np.int32)
        code_of_row -= np.int32(1)   # in place: no second row-sized array
        return np.flatnonzero(is_first).astype(np.int64), code_of_row[owner]
    code_of_row = np.empty(n, dtype=np.int32)
    code_of_row[firsts] = np.arange(firsts.size, dtype=np.int32)
    return firsts, code_of_row[owner]
