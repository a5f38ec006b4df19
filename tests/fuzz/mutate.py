"""Seeded mutators over Parquet file bytes.

Two families:

* byte level: bit flips, bytes set to interesting values, truncation,
  insertion and deletion of bytes, duplication of a chunk of the file;
* structure aware: the footer (``FileMetaData``), every page header reachable
  from the column chunks, the column and offset indexes and the Bloom filter
  headers are walked with :mod:`tests.fuzz.thrift_walk`, and single encoded
  values are rewritten: integers set to boundary values, enums to unknown
  members, offsets and lengths pointed elsewhere, list counts and binary
  lengths made to disagree with the bytes, list elements and whole fields
  dropped or duplicated, field types changed.

A value re-encoded inside the footer may change the footer's size; the
4-byte footer length before the trailing magic is then rewritten so the
file still "looks" well-formed and the reader gets to parse the mutated
struct.  Outside the footer a shorter varint is padded with continuation
bytes (a legal, non-minimal encoding) so no other offset moves.

Everything is driven by the ``random.Random`` passed in, so a mutant is
reproduced exactly from (seed file, rng seed).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from tests.fuzz.thrift_walk import (
    BOOL_FALSE, BOOL_TRUE, ENUM_FIELDS, LENGTH_FIELDS, OFFSET_FIELDS, Item, WalkError,
    encode_uvarint, field_header, list_header, walk_struct, zigzag,
)

__all__ = ["Layout", "layout_of", "seed_layout", "mutate", "MUTATORS", "splice", "set_int"]

INTERESTING_BYTES = (0x00, 0xFF, 0x7F, 0x80, 0x01, 0x0F, 0xF0, 0xFE)
BOUNDARY_INTS = (0, -1, -2, 1, 2, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1, -(2**63),
                 2**15 - 1, 2**15, -(2**15), 255, 256, 65536, 2**62)
UNKNOWN_ENUMS = (-1, 7, 8, 9, 10, 11, 12, 13, 22, 100, 2**31 - 1, -(2**31))
MAX_PAGES_PER_CHUNK = 64
MAX_STRUCTS = 2000
_CHUNK_RE = re.compile(r"^(row_groups\[\d+\]\.columns\[\d+\])\.(?:meta_data\.)?([A-Za-z_]+)$")


@dataclass
class Layout:
    """Where the thrift structures of one file are, as walked from its footer."""

    size: int
    footer_start: int = -1
    footer_len: int = -1
    items: list[Item] = field(default_factory=list)   # footer and every struct found from it
    offsets: list[int] = field(default_factory=list)  # every offset value the footer names
    #: (where, body start, body end, codec) of every page whose header was walked
    pages: list[tuple[str, int, int, int]] = field(default_factory=list)
    error: str | None = None

    @property
    def has_footer(self) -> bool:
        return self.footer_start >= 0


def _chunk_fields(items: list[Item]) -> dict[str, dict[str, int]]:
    """Group the footer's integer fields per column chunk: prefix -> {name: value}."""
    out: dict[str, dict[str, int]] = {}
    for it in items:
        if it.kind != "int":
            continue
        m = _CHUNK_RE.match(it.path)
        if m:
            out.setdefault(m.group(1), {})[m.group(2)] = int(it.value)  # type: ignore[arg-type]
    return out


def _walk_pages(data: bytes, start: int, end: int, label: str, codec: int, lay: Layout) -> None:
    items = lay.items
    pos = start
    for n in range(MAX_PAGES_PER_CHUNK):
        if pos >= end or pos >= len(data) or len(items) > MAX_STRUCTS * 8:
            return
        try:
            found, hend = walk_struct(data, pos, len(data), "PageHeader", f"{label}.page[{n}]")
        except WalkError:
            return
        items.extend(found)
        size = next((int(i.value) for i in found if i.kind == "int" and i.path.endswith("].compressed_page_size")),
                    None)  # type: ignore[arg-type]
        if size is None or size < 0:
            return
        lay.pages.append((f"{label}.page[{n}]", hend, min(hend + size, len(data)), codec))
        pos = hend + size


def _walk_at(data: bytes, off: int | None, length: int | None, sname: str, label: str, items: list[Item]) -> None:
    if off is None or not 0 <= off < len(data):
        return
    limit = len(data) if not length or length <= 0 else min(len(data), off + length)
    try:
        found, _ = walk_struct(data, off, limit, sname, label)
    except WalkError:
        return
    items.extend(found)


@lru_cache(maxsize=32)
def seed_layout(data: bytes) -> Layout:
    """:func:`layout_of`, cached: for seed files, which are mutated many times."""
    return layout_of(data)


def layout_of(data: bytes) -> Layout:
    """Walk the footer, then the page headers, page indexes and Bloom headers it points at."""
    n = len(data)
    lay = Layout(n)
    if n < 12 or data[-4:] != b"PAR1":
        lay.error = "no PAR1 tail"
        return lay
    flen = int.from_bytes(data[-8:-4], "little")
    fstart = n - 8 - flen
    if not 4 <= fstart < n - 8:
        lay.error = "footer length out of range"
        return lay
    try:
        items, _ = walk_struct(data, fstart, n - 8, "FileMetaData")
    except WalkError as exc:
        lay.error = f"footer: {exc}"
        return lay
    lay.footer_start, lay.footer_len, lay.items = fstart, flen, items
    for prefix, f in _chunk_fields(items).items():
        lay.offsets.extend(v for k, v in f.items() if k in OFFSET_FIELDS)
        dict_off = f.get("dictionary_page_offset")
        data_off = f.get("data_page_offset")
        first = dict_off if dict_off and 0 < dict_off < (data_off or n) else data_off
        if first is not None and 0 <= first < fstart:
            _walk_pages(data, first, first + max(0, f.get("total_compressed_size", 0)), prefix,
                        f.get("codec", -1), lay)
        _walk_at(data, f.get("column_index_offset"), f.get("column_index_length"), "ColumnIndex",
                 f"{prefix}.column_index", lay.items)
        _walk_at(data, f.get("offset_index_offset"), f.get("offset_index_length"), "OffsetIndex",
                 f"{prefix}.offset_index", lay.items)
        _walk_at(data, f.get("bloom_filter_offset"), None, "BloomFilterHeader", f"{prefix}.bloom", lay.items)
    return lay


# -- editing helpers ------------------------------------------------------------

def splice(data: bytes, lay: Layout, start: int, end: int, new: bytes) -> bytes:
    """Replace ``data[start:end]`` with ``new``; keep the footer length right if the edit is inside it."""
    out = data[:start] + new + data[end:]
    if lay.has_footer and start >= lay.footer_start and end <= lay.size - 8:
        flen = lay.footer_len + len(new) - (end - start)
        if flen >= 0:
            out = out[:-8] + flen.to_bytes(4, "little") + out[-4:]
    return out


def _padded_uvarint(u: int, width: int) -> bytes:
    """``u`` as a ULEB128 of exactly ``width`` bytes when it fits (non-minimal), else minimal."""
    enc = encode_uvarint(u)
    if len(enc) >= width or u >= 1 << (7 * width):
        return enc
    out = bytearray((u >> (7 * i)) & 0x7F | 0x80 for i in range(width - 1))
    out.append((u >> (7 * (width - 1))) & 0x7F)
    return bytes(out)


def set_int(data: bytes, lay: Layout, it: Item, value: int, pad: bool | None = None) -> bytes:
    """Re-encode an ``int`` item (zigzag varint) with a new value."""
    u = zigzag(value)
    in_footer = lay.has_footer and it.start >= lay.footer_start
    width = it.end - it.start
    return splice(data, lay, it.start, it.end, _padded_uvarint(u, width) if (pad or not in_footer) else
                  encode_uvarint(u))


#: how often each kind of structure is aimed at (files with big page indexes would drown the footer)
_CATEGORY_WEIGHTS = {"footer": 10, "page": 4, "column_index": 2, "offset_index": 2, "bloom": 1}


def category(it: Item) -> str:
    """Which structure an item belongs to, from its path."""
    for c in ("column_index", "offset_index", "bloom"):
        if f".{c}" in it.path:
            return c
    return "page" if ".page[" in it.path else "footer"


def _pick(rng: random.Random, items: list[Item], pred: Callable[[Item], bool]) -> Item | None:
    groups: dict[str, list[Item]] = {}
    for i in items:
        if pred(i):
            groups.setdefault(category(i), []).append(i)
    if not groups:
        return None
    names = sorted(groups)
    cat = rng.choices(names, [_CATEGORY_WEIGHTS[n] for n in names])[0]
    return rng.choice(groups[cat])


def _region(rng: random.Random, lay: Layout) -> tuple[int, int, str]:
    """A byte range to aim a byte-level mutation at: the footer, a struct, the tail or anywhere."""
    r = rng.random()
    if lay.has_footer and r < 0.35:
        return lay.footer_start, lay.size - 8, "footer"
    if lay.items and r < 0.6:
        it = rng.choice(lay.items)
        return it.start, max(it.end, it.data_end, it.value_end), f"struct {it.path}"
    if r < 0.7:
        return max(0, lay.size - 8), lay.size, "tail"
    return 0, lay.size, "file"


# -- byte-level mutators ----------------------------------------------------------

def m_bitflip(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    lo, hi, where = _region(rng, lay)
    if hi <= lo:
        return None
    buf = bytearray(data)
    flips = []
    for _ in range(rng.choice((1, 1, 2, 4))):
        pos, bit = rng.randrange(lo, hi), rng.randrange(8)
        buf[pos] ^= 1 << bit
        flips.append(f"{pos}.{bit}")
    return bytes(buf), f"flip bits {','.join(flips)} in {where}"


def m_interesting_byte(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    lo, hi, where = _region(rng, lay)
    if hi <= lo:
        return None
    buf = bytearray(data)
    pos = rng.randrange(lo, hi)
    n = min(rng.choice((1, 1, 2, 4)), len(buf) - pos)
    v = rng.choice(INTERESTING_BYTES)
    buf[pos:pos + n] = bytes([v]) * n
    return bytes(buf), f"set {n} byte(s) at {pos} to 0x{v:02x} in {where}"


def m_truncate(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    if len(data) < 2:
        return None
    r = rng.random()
    if r < 0.3:
        cut = len(data) - rng.randint(1, min(12, len(data) - 1))
    elif r < 0.6 and lay.has_footer:
        cut = rng.randrange(lay.footer_start, len(data))
    else:
        cut = rng.randrange(0, len(data))
    return data[:cut], f"truncate to {cut} of {len(data)} bytes"


def m_insert(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    lo, hi, where = _region(rng, lay)
    pos = rng.randint(lo, hi)
    n = rng.choice((1, 1, 2, 3, 8, 16))
    new = bytes(rng.choice(INTERESTING_BYTES) if rng.random() < 0.5 else rng.randrange(256) for _ in range(n))
    fix = rng.random() < 0.5 and where == "footer"
    out = splice(data, lay, pos, pos, new) if fix else data[:pos] + new + data[pos:]
    return out, f"insert {new.hex()} at {pos} in {where}{' (footer length fixed)' if fix else ''}"


def m_delete(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    lo, hi, where = _region(rng, lay)
    if hi <= lo:
        return None
    pos = rng.randrange(lo, hi)
    n = min(rng.choice((1, 1, 2, 4, 16)), hi - pos)
    fix = rng.random() < 0.5 and where == "footer"
    out = splice(data, lay, pos, pos + n, b"") if fix else data[:pos] + data[pos + n:]
    return out, f"delete {n} byte(s) at {pos} in {where}{' (footer length fixed)' if fix else ''}"


def m_duplicate_chunk(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    if len(data) < 4:
        return None
    n = rng.randint(1, min(64, len(data) // 2))
    src = rng.randrange(0, len(data) - n + 1)
    dst = rng.randrange(0, len(data))
    chunk = data[src:src + n]
    if rng.random() < 0.5:
        out = data[:dst] + chunk + data[dst:]
        return out, f"insert a copy of bytes {src}..{src + n} at {dst}"
    out = data[:dst] + chunk + data[dst + n:]
    return out[:len(data)], f"overwrite bytes at {dst} with a copy of {src}..{src + n}"


# -- structure-aware mutators -------------------------------------------------------

def _new_int(rng: random.Random, old: int) -> int:
    r = rng.random()
    if r < 0.6:
        return rng.choice(BOUNDARY_INTS)
    if r < 0.9:
        return old + rng.choice((-2, -1, 1, 2, 8, -8, 64))
    return old * rng.choice((2, 10, -1))


def m_varint(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "int")
    if it is None:
        return None
    new = _new_int(rng, int(it.value))  # type: ignore[arg-type]
    return set_int(data, lay, it, new), f"{it.path} (i{it.bits} at {it.start}) {it.value} -> {new}"


#: integer fields whose value other code sizes arrays, loops or scales by
SEMANTIC_FIELDS = {"num_rows", "num_values", "num_nulls", "type_length", "scale", "precision", "bitWidth",
                   "num_children", "first_row_index", "null_count", "null_counts", "distinct_count",
                   "ordinal", "column_idx", "field_id", "count", "version", "definition_level_histogram",
                   "repetition_level_histogram", "definition_level_histograms", "repetition_level_histograms",
                   "unencoded_byte_array_data_bytes", "numBytes"}


def m_semantic(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "int" and i.name in SEMANTIC_FIELDS)
    if it is None:
        return None
    new = _new_int(rng, int(it.value))  # type: ignore[arg-type]
    return set_int(data, lay, it, new), f"{it.path} (i{it.bits} at {it.start}) {it.value} -> {new}"


def m_enum(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "int" and i.name in ENUM_FIELDS)
    if it is None:
        return None
    new = rng.choice(UNKNOWN_ENUMS)
    return set_int(data, lay, it, new), f"enum {it.path} (at {it.start}) {it.value} -> {new}"


def m_enum_known(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    """Set an enum to another *known* member: a valid value that does not fit the rest (UTF8 on an
    INT32, DECIMAL on a BOOLEAN, REPEATED on the root, a codec the chunk was not written with)."""
    it = _pick(rng, lay.items, lambda i: i.kind == "int" and i.name in ENUM_FIELDS)
    if it is None:
        return None
    new = rng.randrange(0, 23)
    return set_int(data, lay, it, new), f"enum {it.path} (at {it.start}) {it.value} -> {new} (a known member)"


def m_offset(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "int" and (i.name in OFFSET_FIELDS or i.name in LENGTH_FIELDS))
    if it is None:
        return None
    old = int(it.value)  # type: ignore[arg-type]
    fs = lay.footer_start if lay.has_footer else lay.size
    choices = [0, 4, lay.size, lay.size - 8, lay.size + 1, fs, fs + 1, old + 1, old - 1, old + 4096,
               rng.randrange(0, max(1, lay.size)), -1, 2**31 - 1, 2**63 - 1, old * 2]
    choices += lay.offsets
    new = rng.choice(choices)
    return set_int(data, lay, it, new), f"offset/length {it.path} (at {it.start}) {old} -> {new}"


def m_list_count(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "list")
    if it is None:
        return None
    old = int(it.value)  # type: ignore[arg-type]
    new = rng.choice((0, 1, old + 1, old - 1, old + 2, old * 2, 14, 15, 2**31 - 1, 2**32 + old, 2**20))
    new = max(new, 0)
    return (splice(data, lay, it.start, it.end, list_header(new, it.elem_type)),
            f"list count {it.path} (at {it.start}) {old} -> {new}")


def m_list_element(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "list" and bool(i.elements))
    if it is None:
        return None
    k = rng.randrange(len(it.elements))
    s, e = it.elements[k]
    last = it.elements[-1][1]
    old = len(it.elements)
    if rng.random() < 0.5:
        body, new, what = data[it.end:s] + data[e:last], old - 1, f"drop element {k}"
    else:
        body, new, what = data[it.end:e] + data[s:e] + data[e:last], old + 1, f"duplicate element {k}"
    out = splice(data, lay, it.start, last, list_header(new, it.elem_type) + body)
    return out, f"{what} of {it.path} (at {it.start}), count {old} -> {new}"


def m_binary_len(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "binary")
    if it is None:
        return None
    old = int(it.value)  # type: ignore[arg-type]
    new = max(0, rng.choice((0, old + 1, old - 1, old + 16, old * 2, 2**31 - 1, 2**31, 2**63 - 1, 2**64 + old)))
    return (splice(data, lay, it.start, it.end, encode_uvarint(new)),
            f"binary length {it.path} (at {it.start}) {old} -> {new}")


def m_binary_content(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "binary")
    if it is None:
        return None
    old = data[it.end:it.data_end]
    r = rng.random()
    if r < 0.2:
        new = b""
    elif r < 0.4:
        new = old[: len(old) // 2]
    elif r < 0.6:
        new = old + bytes([rng.choice(INTERESTING_BYTES)]) * rng.choice((1, 3, 8, 17))
    elif r < 0.8:
        new = bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 4, 8, 12, 16, 33))))
    else:
        new = b"\xff" * rng.choice((1, 4, 8, 16, 32))
    out = splice(data, lay, it.start, it.data_end, encode_uvarint(len(new)) + new)
    return out, f"binary content {it.path} (at {it.start}) {old[:16].hex()} -> {new[:16].hex()} ({len(new)} bytes)"


def m_field_type(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "field")
    if it is None:
        return None
    new = rng.choice([t for t in range(1, 13) if t != it.ftype] + [13, 15])
    b = data[it.start]
    return (splice(data, lay, it.start, it.start + 1, bytes([(b & 0xF0) | new])),
            f"field type {it.path} (at {it.start}) {it.ftype} -> {new}")


def _next_field(lay: Layout, it: Item) -> Item | None:
    return next((i for i in lay.items if i.kind == "field" and i.start == it.value_end), None)


def m_field_drop(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "field")
    if it is None:
        return None
    nxt = _next_field(lay, it)
    tail = b"" if nxt is None else field_header(nxt.fid, it.prev_fid, nxt.ftype)
    end = it.value_end if nxt is None else nxt.end
    return splice(data, lay, it.start, end, tail), f"drop field {it.path} (id {it.fid} at {it.start})"


def m_field_id(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    """Renumber a field (in a union such as LogicalType this swaps the member: STRING becomes DECIMAL)."""
    it = _pick(rng, lay.items, lambda i: i.kind == "field")
    if it is None:
        return None
    new = rng.choice([f for f in range(1, 19) if f != it.fid] + [0, 32, 255, -1])
    nxt = _next_field(lay, it)
    head = field_header(new, it.prev_fid, it.ftype)
    if nxt is None:
        out = splice(data, lay, it.start, it.end, head)
    else:  # the next header is a delta from this id: keep its own id
        body = data[it.end:nxt.start]
        out = splice(data, lay, it.start, nxt.end, head + body + field_header(nxt.fid, new, nxt.ftype))
    return out, f"field id {it.path} (at {it.start}) {it.fid} -> {new}"


def m_field_dup(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "field" and i.value_end > i.end)
    if it is None:
        return None
    # the copy repeats the field id: the header of the copy is in long form (delta 0 is not allowed)
    copy = field_header(it.fid, it.fid, it.ftype) + data[it.end:it.value_end]
    return (splice(data, lay, it.value_end, it.value_end, copy),
            f"repeat field {it.path} (id {it.fid} at {it.start})")


def m_bool(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    it = _pick(rng, lay.items, lambda i: i.kind == "bool")
    if it is None:
        return None
    b = data[it.start]
    t = b & 0x0F
    new = BOOL_FALSE if t == BOOL_TRUE else BOOL_TRUE
    return (splice(data, lay, it.start, it.start + 1, bytes([(b & 0xF0) | new])),
            f"flip bool {it.path} (at {it.start})")


def m_page_body(rng: random.Random, data: bytes, lay: Layout) -> tuple[bytes, str] | None:
    """Overwrite bytes of an uncompressed page body (levels, RLE/bit-packed run headers, bit widths,
    dictionary indices, delta block headers), in place: compressed bodies would only fail to inflate."""
    pages = [p for p in lay.pages if p[3] == 0 and p[2] > p[1]]
    if not pages:
        return None
    where, lo, hi, _ = rng.choice(pages)
    buf = bytearray(data)
    # the first bytes hold the level lengths and run headers: aim there more often
    pos = rng.randrange(lo, min(hi, lo + 16)) if rng.random() < 0.6 else rng.randrange(lo, hi)
    n = min(rng.choice((1, 1, 2, 4)), hi - pos)
    if rng.random() < 0.5:
        new = bytes([rng.choice(INTERESTING_BYTES)]) * n
    else:
        new = bytes(b ^ (1 << rng.randrange(8)) for b in buf[pos:pos + n])
    buf[pos:pos + n] = new
    return bytes(buf), f"page body {where}: bytes {pos}..{pos + n} (body {lo}..{hi}) -> {new.hex()}"


#: name -> (function, weight)
MUTATORS: dict[str, tuple[Callable[[random.Random, bytes, Layout], tuple[bytes, str] | None], int]] = {
    "bitflip": (m_bitflip, 6), "interesting_byte": (m_interesting_byte, 5), "truncate": (m_truncate, 2),
    "insert": (m_insert, 3), "delete": (m_delete, 3), "duplicate_chunk": (m_duplicate_chunk, 2),
    "varint": (m_varint, 14), "enum": (m_enum, 5), "offset": (m_offset, 10), "list_count": (m_list_count, 5),
    "list_element": (m_list_element, 5), "binary_len": (m_binary_len, 3), "binary_content": (m_binary_content, 5),
    "field_type": (m_field_type, 3), "field_drop": (m_field_drop, 5), "field_dup": (m_field_dup, 2),
    "bool": (m_bool, 2), "page_body": (m_page_body, 8), "semantic": (m_semantic, 10),
    "enum_known": (m_enum_known, 5), "field_id": (m_field_id, 4),
}
_NAMES = list(MUTATORS)
_WEIGHTS = [MUTATORS[n][1] for n in _NAMES]


def mutate(data: bytes, rng: random.Random, stack: int | None = None) -> tuple[bytes, list[dict[str, str]]]:
    """Apply one to three mutations chosen by ``rng``; returns the mutant and what was done."""
    if stack is None:
        stack = 1 if rng.random() < 0.8 else rng.choice((2, 3))
    ops: list[dict[str, str]] = []
    out = data
    attempts = 0
    while len(ops) < stack and attempts < 20:
        attempts += 1
        name = rng.choices(_NAMES, _WEIGHTS)[0]
        lay = seed_layout(out) if out is data else layout_of(out)
        got = MUTATORS[name][0](rng, out, lay)
        if got is None or got[0] == out:
            continue
        out = got[0]
        ops.append({"mutator": name, "op": got[1]})
    return out, ops
