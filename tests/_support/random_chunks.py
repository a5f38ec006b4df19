"""Random column chunks built from values generated here (a dictionary page or not, data
pages v1 or v2 in mixed encodings, nulls, empty pages, dictionary fallback midway, every
codec), with the values and levels they hold: the ``chunks()`` strategy of
tests/unit/column/test_chunk_fast_paths.py and tests/unit/page/test_plain_pages.py."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from parquet_core._kernels.binary import ByteArrays
from parquet_core.compression import get_codec
from parquet_core.constants import CompressionCodec, Encoding, PageType, PhysicalType, Repetition
from parquet_core.encodings import encode_values, valid_encodings
from parquet_core.encodings.plain_encoder import encode_plain
from parquet_core.encodings.rle_hybrid_encoder import (
    encode_dictionary_indices,
    encode_levels_v1,
    encode_levels_v2,
)
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize

__all__ = ["CODECS", "Chunk", "FLBA_WIDTH", "TYPES", "as_list", "cat", "chunks", "descriptor_of"]

CODECS = [c for c in (CompressionCodec.UNCOMPRESSED, CompressionCodec.SNAPPY, CompressionCodec.GZIP,
                      CompressionCodec.BROTLI, CompressionCodec.LZ4, CompressionCodec.ZSTD,
                      CompressionCodec.LZ4_RAW) if get_codec(c).is_available()]

TYPES = [PhysicalType.INT32, PhysicalType.INT64, PhysicalType.DOUBLE, PhysicalType.FLOAT,
         PhysicalType.BYTE_ARRAY, PhysicalType.FIXED_LEN_BYTE_ARRAY, PhysicalType.BOOLEAN,
         PhysicalType.INT96]
FLBA_WIDTH = 3
#: encodings the page generator never picks for values
_NOT_VALUES = {int(Encoding.PLAIN_DICTIONARY), int(Encoding.RLE_DICTIONARY), int(Encoding.BIT_PACKED),
               int(Encoding.ALP)}


def descriptor_of(ptype: int, rep: Repetition):
    tl = FLBA_WIDTH if ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY else None
    return SchemaDescriptor([pt.SchemaElement(name="m", num_children=1),
                             pt.SchemaElement(name="x", type=ptype, type_length=tl,
                                              repetition_type=rep)]).column(0)


def _values(rng: np.random.Generator, ptype: int, n: int, pool: int = 0):
    """n random values of *ptype*; with *pool*, drawn from a few distinct ones."""
    if ptype == PhysicalType.INT32:
        v = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    elif ptype == PhysicalType.INT64:
        v = rng.integers(-2**62, 2**62, n, dtype=np.int64)
    elif ptype == PhysicalType.DOUBLE:
        v = rng.normal(size=n)
    elif ptype == PhysicalType.FLOAT:
        v = rng.normal(size=n).astype(np.float32)
    elif ptype == PhysicalType.BOOLEAN:
        v = rng.random(n) < 0.5
    elif ptype == PhysicalType.FIXED_LEN_BYTE_ARRAY:
        v = rng.integers(0, 256, (n, FLBA_WIDTH), dtype=np.uint8)
    elif ptype == PhysicalType.INT96:
        v = rng.integers(0, 256, (n, 12), dtype=np.uint8)
    else:
        lens = rng.integers(0, 12, n)
        lens[rng.random(n) < 0.2] = 0        # zero-length values
        v = ByteArrays.from_pylist([bytes(rng.integers(97, 123, k, dtype=np.uint8)) for k in lens])
    return v


def _take(values, idx):
    return values.take(idx) if isinstance(values, ByteArrays) else np.take(values, idx, axis=0)


def cat(parts, ptype):
    if ptype == PhysicalType.BYTE_ARRAY:
        return ByteArrays.concat(parts) if parts else ByteArrays.empty()
    return np.concatenate(parts) if parts else None


def as_list(values):
    if isinstance(values, ByteArrays):
        return values.to_pylist()
    return np.asarray(values).tolist()


@dataclass
class Chunk:
    desc: object
    codec: int
    data: bytes
    num_values: int
    values: object          # expected non-null values
    defs: np.ndarray | None
    reps: np.ndarray | None


@st.composite
def chunks(draw, ptype=None, codec=None):
    ptype = draw(st.sampled_from(TYPES)) if ptype is None else ptype
    rep = draw(st.sampled_from([Repetition.REQUIRED, Repetition.OPTIONAL, Repetition.REPEATED]))
    codec = draw(st.sampled_from(CODECS)) if codec is None else codec
    desc = descriptor_of(ptype, rep)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    max_def, max_rep = desc.max_definition_level, desc.max_repetition_level
    others = sorted(valid_encodings(ptype) - _NOT_VALUES - {int(Encoding.PLAIN)})
    has_dict = draw(st.booleans())
    dictionary = _values(rng, ptype, draw(st.integers(1, 20))) if has_dict else None
    kinds = ["plain", "other"] + (["dict"] if has_dict else [])
    # dictionary pages first, then a fallback to other encodings (as writers do), or mixed
    page_kinds = draw(st.lists(st.sampled_from(kinds), min_size=0, max_size=7))
    if has_dict and draw(st.booleans()):
        page_kinds = sorted(page_kinds, key=lambda k: k != "dict")
    out = bytearray()
    codec_obj = get_codec(codec)
    if has_dict:
        body = encode_plain(dictionary, ptype, desc.type_length)
        stored = codec_obj.compress(body)
        h = pt.PageHeader(type=PageType.DICTIONARY_PAGE, uncompressed_page_size=len(body),
                          compressed_page_size=len(stored),
                          dictionary_page_header=pt.DictionaryPageHeader(
                              num_values=len(dictionary), encoding=Encoding.PLAIN))
        out += serialize(h) + stored
    vals, defs, reps = [], [], []
    total = 0
    for kind in page_kinds:
        n = draw(st.sampled_from([0, 1, 2, 7, 8, 9, 33, 100]))
        null_mode = draw(st.sampled_from(["none", "some", "all"])) if max_def else "none"
        d = np.full(n, max_def, dtype=np.int16)
        if null_mode == "some":
            d[rng.random(n) < 0.3] = 0
        elif null_mode == "all":
            d[:] = 0
        r = rng.integers(0, max_rep + 1, n).astype(np.int16) if max_rep else None
        if r is not None and n:
            r[0] = 0
        k = int(np.count_nonzero(d == max_def))
        if kind == "dict":
            idx = rng.integers(0, len(dictionary), k)
            v = _take(dictionary, idx)
            enc = draw(st.sampled_from([Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY]))
            payload = encode_dictionary_indices(idx, len(dictionary)) if k else b""
        else:
            enc = Encoding.PLAIN if kind == "plain" or not others else draw(st.sampled_from(others))
            v = _values(rng, ptype, k)
            payload = encode_values(enc, v, ptype, desc.type_length) if k else b""
        vals.append(v)
        defs.append(d)
        if r is not None:
            reps.append(r)
        total += n
        if draw(st.booleans()):   # data page v1: levels and values compressed together
            body = ((encode_levels_v1(r, max_rep) if max_rep else b"")
                    + (encode_levels_v1(d, max_def) if max_def else b"") + payload)
            stored = codec_obj.compress(body)
            h = pt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(body),
                              compressed_page_size=len(stored),
                              data_page_header=pt.DataPageHeader(
                                  num_values=n, encoding=enc, definition_level_encoding=Encoding.RLE,
                                  repetition_level_encoding=Encoding.RLE))
        else:                     # v2: levels never compressed, values maybe
            rl = encode_levels_v2(r, max_rep) if max_rep else b""
            dl = encode_levels_v2(d, max_def) if max_def else b""
            compressed = draw(st.booleans())
            body_v = codec_obj.compress(payload) if compressed else payload
            stored = rl + dl + body_v
            h = pt.PageHeader(type=PageType.DATA_PAGE_V2,
                              uncompressed_page_size=len(rl) + len(dl) + len(payload),
                              compressed_page_size=len(stored),
                              data_page_header_v2=pt.DataPageHeaderV2(
                                  num_values=n, num_nulls=n - k, num_rows=n, encoding=enc,
                                  definition_levels_byte_length=len(dl),
                                  repetition_levels_byte_length=len(rl), is_compressed=compressed))
        if draw(st.booleans()):
            c = zlib.crc32(stored)
            h.crc = c - (1 << 32) if c >= 1 << 31 else c
        out += serialize(h) + stored
    values = cat(vals, ptype)
    return Chunk(desc, codec, bytes(out), total, values,
                 np.concatenate(defs) if max_def and defs else (np.zeros(0, np.int16) if max_def else None),
                 np.concatenate(reps) if max_rep and reps else (np.zeros(0, np.int16) if max_rep else None))
