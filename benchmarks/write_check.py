"""Checks of every file the write benchmark writes (outside the timed region).

A fast writer that writes the wrong thing must not win, so each engine's
first file of every cell is

1. **read back with pyarrow** and compared to the source table
   (:func:`check_values`): row count, column names, and every column's values
   and nulls (``ChunkedArray.equals`` after casting the file's type to the
   source's, e.g. fastparquet's Categorical back to string; a type that
   differs is reported as a note);
2. **walked page by page** with fastparquet's thrift parser
   (:func:`page_layout`), an implementation independent of ours, and compared
   with what the variant asked for (:func:`check_layout`): the codec of every
   chunk, the data page version, no dictionary when it is off, the requested
   encoding on every data page of the columns it names, and a dictionary for
   ``str_low`` when it is on.

A values mismatch makes the cell WRONG and a layout mismatch LAYOUT; neither
enters a ratio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pac
import pyarrow.parquet as pq

__all__ = ["check_values", "page_layout", "check_layout", "enc_label", "CODEC_NAMES"]

#: variant codec name -> pyarrow's name for the chunk codec
CODEC_NAMES = {"none": "UNCOMPRESSED", "snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP",
               "brotli": "BROTLI", "lz4_raw": "LZ4_RAW", "lz4": "LZ4"}

# parquet.thrift enums (PageType, Encoding)
_DATA_PAGE, _DICT_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_ENC = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
        6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}
_CODECS = {0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 3: "LZO", 4: "BROTLI", 5: "LZ4", 6: "ZSTD", 7: "LZ4_RAW"}
_DICT_ENCS = {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}
_ABBR = {"PLAIN": "PLAIN", "PLAIN_DICTIONARY": "DICT", "RLE_DICTIONARY": "DICT", "RLE": "RLE",
         "DELTA_BINARY_PACKED": "DBP", "DELTA_LENGTH_BYTE_ARRAY": "DLBA", "DELTA_BYTE_ARRAY": "DBA",
         "BYTE_STREAM_SPLIT": "BSS", "BIT_PACKED": "BITPK"}


def _first_diff(got: pa.Array, src: pa.Array) -> str:
    gv = got.is_valid().to_numpy(zero_copy_only=False)
    sv = src.is_valid().to_numpy(zero_copy_only=False)
    if not np.array_equal(gv, sv):
        i = int(np.flatnonzero(gv != sv)[0])
        return f"row {i}: null in one and not the other (file valid={gv[i]}, source valid={sv[i]})"
    eq = pac.equal(got, src).fill_null(True).to_numpy(zero_copy_only=False)
    if eq.all():
        return "arrays differ but no differing value found (metadata?)"
    i = int(np.flatnonzero(~eq)[0])
    return f"row {i}: file {got[i].as_py()!r} != source {src[i].as_py()!r}"


def check_values(path: str | Path, source: pa.Table) -> tuple[bool, str, list[str]]:
    """Read *path* with pyarrow and compare it to *source*: (ok, detail, notes)."""
    names = source.column_names
    notes: list[str] = []
    got_t = pq.read_table(path, use_threads=True)
    if got_t.num_rows != source.num_rows:
        return False, f"num_rows {got_t.num_rows} != source {source.num_rows}", notes
    missing = [c for c in names if c not in got_t.column_names]
    if missing:
        return False, f"columns missing from the file: {missing}", notes
    extra = [c for c in got_t.column_names if c not in names]
    if extra:
        notes.append(f"extra columns {extra}")
    for c in names:
        got, src = got_t.column(c), source.column(c)
        if got.type != src.type:
            try:
                typ = got.type
                if pa.types.is_dictionary(typ):
                    got = got.cast(typ.value_type)
                got = got.cast(src.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                return False, f"{c}: file type {typ} cannot be read as {src.type} ({exc})", notes
            notes.append(f"{c}: file reads back as {typ}")
        if not got.equals(src):
            return False, f"{c}: " + _first_diff(got.combine_chunks(), src.combine_chunks()), notes
    return True, "ok", notes


def page_layout(path: str | Path) -> dict[str, dict[str, Any]]:
    """Per column: page counts by type and data-page encodings, summed over row groups.

    Footer and page headers are parsed with fastparquet's thrift reader (an
    implementation independent of ours); the codec is the footer's enum
    value (pyarrow's metadata names LZ4_RAW "LZ4").
    """
    import fastparquet
    from fastparquet.cencoding import NumpyIO, ThriftObject

    fmd = fastparquet.ParquetFile(str(path)).fmd
    out: dict[str, dict[str, Any]] = {}
    with open(path, "rb") as f:
        for rg in fmd.row_groups:
            for ch in rg.columns:
                m = ch.meta_data
                name = ".".join(m.path_in_schema)
                d = out.setdefault(name, {"codecs": set(), "page_types": {}, "data_encodings": {},
                                          "dictionary_pages": 0})
                d["codecs"].add(_CODECS.get(int(m.codec), str(m.codec)))
                start = m.data_page_offset
                if m.dictionary_page_offset is not None:
                    start = min(start, m.dictionary_page_offset)
                f.seek(start)
                buf = np.frombuffer(f.read(m.total_compressed_size), dtype=np.uint8)
                io = NumpyIO(buf)
                while io.tell() < len(buf):
                    ph = ThriftObject.from_buffer(io, "PageHeader")
                    typ = int(ph.type)
                    d["page_types"][typ] = d["page_types"].get(typ, 0) + 1
                    if typ == _DICT_PAGE:
                        d["dictionary_pages"] += 1
                    elif typ in (_DATA_PAGE, _DATA_PAGE_V2):
                        hdr = ph.data_page_header if typ == _DATA_PAGE else ph.data_page_header_v2
                        enc = _ENC.get(int(hdr.encoding), str(hdr.encoding))
                        d["data_encodings"][enc] = d["data_encodings"].get(enc, 0) + 1
                    io.seek(io.tell() + int(ph.compressed_page_size))
    for d in out.values():
        d["codecs"] = sorted(d["codecs"])
    return out


def enc_label(layout: dict[str, Any] | None) -> str:
    """Data-page encodings of one column, most pages first (``DICT+PLAIN`` = fell back)."""
    if not layout:
        return "?"
    encs = layout["data_encodings"]
    names: list[str] = []
    for e in sorted(encs, key=lambda e: -encs[e]):
        a = _ABBR.get(e, e)
        if a not in names:
            names.append(a)
    return "+".join(names)


def check_layout(layout: dict[str, dict[str, Any]], variant: Any) -> tuple[bool, str]:
    """Does the file's layout match what *variant* (a ``WriteVariant``) asked for?"""
    codec = CODEC_NAMES[variant.compression]
    want_type = _DATA_PAGE_V2 if variant.data_page_version == "2.0" else _DATA_PAGE
    for col, d in layout.items():
        if d["codecs"] != [codec]:
            return False, f"{col}: codec {d['codecs']} != {codec}"
        data_types = {t for t in d["page_types"] if t in (_DATA_PAGE, _DATA_PAGE_V2)}
        if data_types != {want_type}:
            return False, f"{col}: data page types {sorted(data_types)} != [{want_type}]"
        encs = set(d["data_encodings"])
        if not variant.use_dictionary and (d["dictionary_pages"] or encs & _DICT_ENCS):
            return False, f"{col}: dictionary used with use_dictionary=False"
        want = (variant.encodings() or {}).get(col)
        if want is not None and encs != {want.upper()}:
            return False, f"{col}: data page encodings {sorted(encs)} != [{want.upper()}]"
    if variant.use_dictionary and "str_low" in layout:
        d = layout["str_low"]
        if not d["dictionary_pages"] or not set(d["data_encodings"]) & _DICT_ENCS:
            return False, "str_low: no dictionary with use_dictionary=True (50 distinct values)"
    return True, "ok"
