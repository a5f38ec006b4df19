"""Variants and per-engine options of the write benchmark (``python -m benchmarks.write_bench``).

The dataset is the read benchmark's (:func:`benchmarks.read_bench_data.make_table`),
so read and write numbers describe the same nine columns.

A :class:`WriteVariant` names one layout (codec, dictionary on/off, value
encodings, data page version).  :func:`pc_options`, :func:`pa_options` and
:func:`fp_options` translate it into each engine's keyword arguments with
every setting that changes the bytes or the work spelled out, so that no
engine silently runs with a different default:

* row group size, data page size (1 MiB), dictionary page limit (1 MiB),
  statistics on for every column, page index on/off (``--page-index``; ours
  defaults to on, pyarrow's to off), page checksums off;
* compression levels pinned to the same value for every engine
  (``LEVELS``; pyarrow's own defaults differ: zstd 1, gzip 9).

fastparquet cannot express most of this (``fp_options`` returns why not):
it has no ``column_encoding`` (PLAIN only), no data page v2, no page index,
one data page per column chunk, dictionary encoding only for pandas
``Categorical`` columns, and writes its ``LZ4`` codec as raw LZ4 blocks
rather than the Hadoop framing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from benchmarks.read_bench_data import BOOL_COLS, COLUMNS, FLOAT_COLS, INT_COLS, STR_COLS

__all__ = [
    "WriteVariant", "VARIANTS", "EXTRA_VARIANTS", "ALL_VARIANTS", "LEVELS", "MAIN_VARIANT",
    "pc_options", "pa_options", "fp_options", "fp_frame", "arrow_nbytes",
]

#: compression levels used by every engine (None: the codec has no level)
LEVELS: dict[str, int | None] = {
    "none": None, "snappy": None, "lz4_raw": None, "lz4": None,
    "zstd": 3, "gzip": 6, "brotli": 8,
}

#: the variant timed column by column (the most common real-world layout)
MAIN_VARIANT = "dict_snappy"


@dataclass(frozen=True)
class WriteVariant:
    """One way of writing the benchmark table.

    ``column_encoding`` maps the columns whose encoding the variant is
    about (``focus``) to a lower-case encoding name; every other column is
    written PLAIN when the dictionary is off.
    """

    name: str
    short: str
    description: str
    compression: str = "none"
    use_dictionary: bool = True
    column_encoding: dict[str, str] = field(default_factory=dict)
    data_page_version: str = "1.0"

    @property
    def focus(self) -> tuple[str, ...]:
        return tuple(self.column_encoding)

    def encodings(self) -> dict[str, str] | None:
        """Explicit encoding of every column (non-dictionary variants), else None."""
        if self.use_dictionary:
            return None
        out = {c: "plain" for c in COLUMNS}
        out.update(self.column_encoding)
        return out


def _enc(encoding: str, cols: list[str]) -> dict[str, str]:
    return {c: encoding for c in cols}


def _codec_variants(dictionary: bool, codecs: list[str]) -> list[WriteVariant]:
    prefix, short = ("dict", "D") if dictionary else ("plain", "P")
    what = "dictionary on" if dictionary else "PLAIN everywhere (no dictionary)"
    abbr = {"none": "none", "snappy": "snap", "zstd": "zstd", "gzip": "gzip", "lz4_raw": "lz4r",
            "brotli": "brot", "lz4": "lz4h"}
    return [WriteVariant(f"{prefix}_{c}", f"{short}-{abbr[c]}", f"{what}, {c}, data page v1",
                         compression=c, use_dictionary=dictionary) for c in codecs]


VARIANTS: list[WriteVariant] = [
    *_codec_variants(True, ["none", "snappy", "zstd", "gzip", "lz4_raw"]),
    *_codec_variants(False, ["none", "snappy", "zstd", "gzip"]),
    WriteVariant("delta_binary_packed", "DBP", "DELTA_BINARY_PACKED for ints/timestamp, rest PLAIN, none",
                 use_dictionary=False, column_encoding=_enc("delta_binary_packed", INT_COLS)),
    WriteVariant("delta_length_byte_array", "DLBA", "DELTA_LENGTH_BYTE_ARRAY for strings, rest PLAIN, none",
                 use_dictionary=False, column_encoding=_enc("delta_length_byte_array", STR_COLS)),
    WriteVariant("delta_byte_array", "DBA", "DELTA_BYTE_ARRAY for strings, rest PLAIN, none",
                 use_dictionary=False, column_encoding=_enc("delta_byte_array", STR_COLS)),
    WriteVariant("byte_stream_split", "BSS", "BYTE_STREAM_SPLIT for floats/ints/timestamp, rest PLAIN, none",
                 use_dictionary=False, column_encoding=_enc("byte_stream_split", FLOAT_COLS + INT_COLS)),
    WriteVariant("rle_bool", "RLE", "RLE for bool, rest PLAIN, none",
                 use_dictionary=False, column_encoding=_enc("rle", BOOL_COLS)),
    WriteVariant("dict_snappy_v2", "D-v2", "dictionary on, snappy, data page v2",
                 compression="snappy", data_page_version="2.0"),
    WriteVariant("plain_none_v2", "P-v2", "PLAIN everywhere, none, data page v2",
                 use_dictionary=False, data_page_version="2.0"),
]

#: slower or rarer codecs, run with ``--variants`` or ``--all``
EXTRA_VARIANTS: list[WriteVariant] = [
    *_codec_variants(True, ["brotli", "lz4"]),
    *_codec_variants(False, ["lz4_raw", "brotli"]),
]

ALL_VARIANTS: list[WriteVariant] = VARIANTS + EXTRA_VARIANTS


def _common(v: WriteVariant, row_group_size: int, page_index: bool) -> dict[str, Any]:
    kw: dict[str, Any] = dict(
        compression=v.compression, use_dictionary=v.use_dictionary,
        data_page_version=v.data_page_version, data_page_size=1 << 20,
        dictionary_pagesize_limit=1 << 20, row_group_size=row_group_size,
        write_statistics=True, write_page_index=page_index, write_page_checksum=False,
    )
    level = LEVELS.get(v.compression)
    if level is not None:
        kw["compression_level"] = level
    return kw


def pc_options(v: WriteVariant, row_group_size: int, page_index: bool,
               columns: list[str] | None = None) -> dict[str, Any]:
    """``parquet_core.write_table`` keyword arguments (lower-case names)."""
    kw = _common(v, row_group_size, page_index)
    enc = v.encodings()
    if enc is not None:
        kw["column_encoding"] = {c: e for c, e in enc.items() if columns is None or c in columns}
    return kw


def pa_options(v: WriteVariant, row_group_size: int, page_index: bool,
               columns: list[str] | None = None) -> dict[str, Any]:
    """``pyarrow.parquet.write_table`` keyword arguments (upper-case encoding names)."""
    kw = _common(v, row_group_size, page_index)
    enc = v.encodings()
    if enc is not None:
        kw["column_encoding"] = {c: e.upper() for c, e in enc.items() if columns is None or c in columns}
    return kw


_FP_CODECS = {"none": None, "snappy": "SNAPPY", "zstd": "ZSTD", "gzip": "GZIP", "brotli": "BROTLI",
              "lz4_raw": "LZ4_RAW"}
_FP_LEVEL_ARG = {"zstd": "level", "gzip": "compresslevel", "brotli": "level"}
#: fastparquet's own levels (cramjam's defaults); when they equal ``LEVELS`` the codec is
#: passed by name, because fastparquet 2026.9 fails (``'dict' has no attribute 'upper'``)
#: on a Categorical's dictionary page when the codec comes with arguments
_FP_DEFAULT_LEVEL = {"zstd": 3, "gzip": 6, "brotli": 11}


def fp_options(v: WriteVariant, row_group_size: int) -> tuple[dict[str, Any] | None, str]:
    """(``fastparquet.write`` keyword arguments, note); None when fastparquet cannot write *v*.

    In dictionary variants fastparquet gets ``str_low`` as a pandas
    ``Categorical`` (its only way to write a dictionary page, see
    :func:`fp_frame`); every other column stays PLAIN.
    """
    if v.column_encoding:
        encs = sorted({e.upper() for e in v.column_encoding.values()})
        return None, f"fastparquet cannot write {'/'.join(encs)} (PLAIN only)"
    if v.data_page_version != "1.0":
        return None, "fastparquet cannot write data page v2"
    if v.compression not in _FP_CODECS:
        return None, f"fastparquet cannot write {v.compression} (its LZ4 is raw blocks, not Hadoop framing)"
    codec = _FP_CODECS[v.compression]
    level = LEVELS.get(v.compression)
    comp: Any = codec
    if codec is not None and level is not None and level != _FP_DEFAULT_LEVEL.get(v.compression):
        comp = {"_default": {"type": codec, "args": {_FP_LEVEL_ARG[v.compression]: level}}}
    kw = dict(row_group_offsets=row_group_size, compression=comp, stats=True, write_index=False,
              has_nulls=True, object_encoding="utf8")
    note = "one data page per chunk, no page index"
    if v.use_dictionary:
        note += "; dictionary only for str_low (Categorical), rest PLAIN"
    return kw, note


def fp_frame(table: pa.Table, dictionary: bool) -> Any:
    """The benchmark table as the pandas DataFrame fastparquet writes natively.

    Strings are ``object`` columns of ``str``, ``int64_null`` a nullable
    ``Int64`` column, ``ts_us`` ``datetime64[us]``; with *dictionary*,
    ``str_low`` is a ``Categorical``.  Built outside the timed region.
    """
    import pandas as pd

    cols: dict[str, Any] = {}
    for name in table.column_names:
        arr = table.column(name).combine_chunks()
        if pa.types.is_string(arr.type):
            cols[name] = arr.to_numpy(zero_copy_only=False)
        elif arr.null_count:
            valid = arr.is_valid().to_numpy(zero_copy_only=False)
            cols[name] = pd.arrays.IntegerArray(arr.fill_null(0).to_numpy(), ~valid)
        else:
            cols[name] = arr.to_numpy(zero_copy_only=False)
    df = pd.DataFrame(cols)
    if dictionary and "str_low" in df:
        df["str_low"] = df["str_low"].astype("category")
    return df


def arrow_nbytes(table: pa.Table) -> dict[str, int]:
    """In-memory size of every column: its Arrow buffers (values, offsets, validity bitmap).

    This is the size the MB/s of every engine is computed on (MB = 1e6 bytes).
    """
    return {name: int(table.column(name).nbytes) for name in table.column_names}
