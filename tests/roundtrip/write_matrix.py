"""The write matrix: every writer option combination the tests and benchmarks use.

Each case writes one file into memory; :func:`digests` maps case names to the
SHA-256 of the bytes.  ``tests/roundtrip/data/write_matrix_digests.json`` holds
the digests the writer produced before the write path was restructured
(commit ebfe85e); ``test_write_identity.py`` checks the current writer still
produces them, byte for byte.

Encryption draws its nonces and the file's ``aad_file_unique`` from
``os.urandom``; :func:`fixed_random` replaces it by a counter-seeded stream
while the matrix is written, so encrypted files are comparable byte for byte
too (restarted for every case; the order of the draws is part of what is compared).

Regenerate (only when a change to the bytes is intended)::

    PYTHONPATH=. python -m tests.roundtrip.write_matrix --update
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import hashlib
import io
import json
import os
import struct
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import parquet_core as pc

DIGESTS = Path(__file__).with_name("data") / "write_matrix_digests.json"

FOOTER_KEY = bytes(range(16))
COLUMN_KEY = bytes(range(16, 32))


@contextlib.contextmanager
def fixed_random() -> Iterator[None]:
    """``os.urandom`` replaced by a deterministic stream (SHA-256 of a counter)."""
    real = os.urandom
    state = {"n": 0}

    def urandom(size: int) -> bytes:
        out = b""
        while len(out) < size:
            out += hashlib.sha256(state["n"].to_bytes(8, "little")).digest()
            state["n"] += 1
        return out[:size]

    os.urandom = urandom
    try:
        yield
    finally:
        os.urandom = real


# -- data ---------------------------------------------------------------------

def _flat(n: int = 600, seed: int = 7) -> Any:
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    mask = rng.random(n) < 0.2
    words = np.array(["alpha", "beta", "gamma", "delta", "épsilon", "", "zeta" * 30])
    strs = words[rng.integers(0, len(words), n)]
    i64 = rng.integers(-10**12, 10**12, n)
    return pa.table({
        "i8": pa.array(rng.integers(-128, 127, n, dtype=np.int8)),
        "i16": pa.array(rng.integers(-3000, 3000, n, dtype=np.int16), mask=mask),
        "i32": pa.array(rng.integers(-10**6, 10**6, n, dtype=np.int32)),
        "i64": pa.array(i64, mask=mask),
        "u8": pa.array(rng.integers(0, 255, n, dtype=np.uint8)),
        "u32": pa.array(rng.integers(0, 2**32 - 1, n, dtype=np.uint32)),
        "u64": pa.array(rng.integers(0, 2**63, n, dtype=np.uint64), mask=mask),
        "f16": pa.array(rng.random(n).astype(np.float16)),
        "f32": pa.array(rng.random(n).astype(np.float32), mask=mask),
        "f64": pa.array(np.where(rng.random(n) < 0.02, np.nan, rng.normal(size=n))),
        "b": pa.array(rng.random(n) < 0.5, mask=mask),
        "s": pa.array(strs.tolist(), mask=mask),
        "bin": pa.array([x.encode() for x in strs], pa.binary()),
        "fsb": pa.array([i.to_bytes(4, "little") for i in range(n)], pa.binary(4)),
        "d9": pa.array([decimal.Decimal(int(v) % 10**7) / 100 for v in i64], pa.decimal128(9, 2)),
        "d30": pa.array([decimal.Decimal(int(v)) / 1000 for v in i64], pa.decimal128(30, 3), mask=mask),
        "date": pa.array((i64 % 40000).astype(np.int32), pa.date32()),
        "t_ms": pa.array((np.abs(i64) % 86_400_000).astype(np.int32), pa.time32("ms")),
        "t_us": pa.array(np.abs(i64) % 86_400_000_000, pa.time64("us")),
        "ts_us": pa.array(i64 * 1000, pa.timestamp("us")),
        "ts_ns_utc": pa.array(i64 * 1000, pa.timestamp("ns", "UTC"), mask=mask),
        "ts_ms": pa.array(i64 // 1000, pa.timestamp("ms")),
        "dict": pa.array(strs.tolist()).dictionary_encode(),
        "large": pa.array(strs.tolist(), pa.large_string()),
    })


def _nested(n: int = 300, seed: int = 11) -> Any:
    import pyarrow as pa

    rng = np.random.default_rng(seed)

    def maybe(i: int, v: Any) -> Any:
        return None if i % 7 == 3 else v

    lists = [maybe(i, [int(x) if x % 5 else None for x in rng.integers(0, 50, i % 4)]) for i in range(n)]
    structs = [maybe(i, {"a": i, "b": None if i % 3 else f"s{i}"}) for i in range(n)]
    maps = [maybe(i, [(f"k{j}", j * i if j % 2 else None) for j in range(i % 3)]) for i in range(n)]
    lol = [[[f"x{i}{j}{k}" for k in range(k_)] for j, k_ in enumerate(range(i % 3))] for i in range(n)]
    los = [[{"x": i + j, "y": [float(j)] * (j % 2)} for j in range(i % 3)] for i in range(n)]
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "l": pa.array(lists, pa.list_(pa.int32())),
        "st": pa.array(structs, pa.struct([pa.field("a", pa.int64(), False), pa.field("b", pa.string())])),
        "m": pa.array(maps, pa.map_(pa.string(), pa.int64())),
        "lol": pa.array(lol, pa.list_(pa.list_(pa.string()))),
        "los": pa.array(los, pa.list_(pa.struct([("x", pa.int64()), ("y", pa.list_(pa.float64()))]))),
        "ll": pa.array([[i] * (i % 3) for i in range(n)], pa.large_list(pa.int16())),
        "fsl": pa.array([[i % 100, i % 50] for i in range(n)], pa.list_(pa.int8(), 2)),
    })


def _pc_nested_required() -> tuple[Any, Any]:
    schema = pc.schema([
        pc.field("id", pc.int32(), nullable=False),
        pc.field("tags", pc.list_(pc.field("element", pc.string(), nullable=False)), nullable=False),
        pc.field("pt", pc.struct([pc.field("x", pc.float64(), nullable=False),
                                  pc.field("y", pc.float64())]), nullable=False),
    ])
    data = {"id": list(range(50)), "tags": [[f"t{j}" for j in range(i % 4)] for i in range(50)],
            "pt": [{"x": float(i), "y": None if i % 2 else -float(i)} for i in range(50)]}
    return data, schema


def _variant() -> tuple[Any, Any]:
    schema = pc.schema([pc.field("id", pc.int32()), pc.field("v", pc.variant()),
                        pc.field("ev", pc.variant(shredding={"event_type": pc.string(),
                                                             "ts": pc.timestamp("us", utc=True),
                                                             "tags": [pc.string()]}))])
    events = [{"event_type": "signup", "tags": ["a"]}, "oops", None, {"event_type": "x", "n": 5},
              [1, 2, 3], 7, {"tags": ["b", "c"]}, 2.5, True, pc.variant.NULL]
    plain = [{"a": i, "b": [i, str(i)]} if i % 3 else i * 1.5 for i in range(len(events))]
    return {"id": list(range(len(events))), "v": plain, "ev": events}, schema


def _geo() -> tuple[Any, Any]:
    points = [struct.pack("<BIdd", 1, 1, x, y) for x, y in [(1.0, 2.0), (-3.5, 4.25), (0.0, 0.0)]]
    schema = pc.schema([pc.field("g", pc.geometry("srid:4326")),
                        pc.field("h", pc.geography("OGC:CRS84", "vincenty"))])
    return {"g": points[:2] + [None], "h": points}, schema


def _file_refs() -> tuple[Any, Any]:
    schema = pc.schema([pc.field("id", pc.int32()), pc.field("doc", pc.file_ref())])
    rows = [{"uri": "s3://bucket/a.png", "offset": None, "size": None, "content_type": "image/png",
             "checksum": None, "inline": None},
            None,
            {"uri": None, "offset": 0, "size": 4, "content_type": None, "checksum": None,
             "inline": None},
            {"uri": None, "offset": None, "size": None, "content_type": "text/plain",
             "checksum": None, "inline": b"hello"}]
    return {"id": [1, 2, 3, 4], "doc": rows}, schema


def _misc_pc() -> tuple[Any, Any]:
    schema = pc.schema([
        pc.field("u", pc.uuid()), pc.field("j", pc.json_()), pc.field("e", pc.enum()),
        pc.field("iv", pc.interval()), pc.field("nul", pc.null()),
        pc.field("bs", pc.bson()), pc.field("t_ns", pc.time("ns")),
    ])
    import uuid

    n = 20
    data = {
        "u": [uuid.UUID(int=i * 7919) for i in range(n)],
        "j": ['{"a": %d}' % i for i in range(n)],
        "e": ["RED" if i % 2 else "BLUE" for i in range(n)],
        "iv": [bytes(12) for _ in range(n)],
        "nul": [None] * n,
        "bs": [b"\x05\x00\x00\x00\x00" for _ in range(n)],
        "t_ns": [dt.time(1, 2, i % 60) for i in range(n)],
    }
    return data, schema


def _bench(rows: int = 3000) -> Any:
    from benchmarks.read_bench_data import make_table

    return make_table(rows, 1)


# -- cases ----------------------------------------------------------------------

Case = Callable[[io.BytesIO], None]


def _write(data: Any, schema: Any = None, **kw: Any) -> Case:
    def run(sink: io.BytesIO) -> None:
        pc.write_table(data() if callable(data) else data, sink, schema=schema, **kw)
    return run


def _writer(parts: Callable[[], list[Any]], schema: Callable[[], Any], extra_kv: bool = False,
            **kw: Any) -> Case:
    def run(sink: io.BytesIO) -> None:
        with pc.ParquetWriter(sink, schema(), **kw) as w:
            for part in parts():
                w.write_table(part)
            if extra_kv:
                w.add_key_value_metadata({"later": "yes"})
    return run


def _cases() -> dict[str, Case]:
    import pyarrow as pa

    cases: dict[str, Case] = {}
    flat, nested = _flat, _nested
    cases["flat_default"] = _write(flat)
    cases["nested_default"] = _write(nested)
    for codec in ["none", "snappy", "gzip", "brotli", "zstd", "lz4", "lz4_raw"]:
        cases[f"flat_{codec}"] = _write(flat, compression=codec)
    cases["flat_zstd_level"] = _write(flat, compression="zstd", compression_level=9)
    cases["flat_per_column_codec"] = _write(flat, compression={None: "gzip", "s": "none"},
                                            compression_level={"i32": 1})
    cases["flat_no_dict"] = _write(flat, use_dictionary=False)
    cases["flat_dict_some"] = _write(flat, use_dictionary=["s", "i64"])
    ints = ["i8", "i16", "i32", "i64", "u8", "u32", "u64", "date", "t_ms", "t_us", "ts_us", "ts_ms"]
    cases["flat_delta"] = _write(flat, use_dictionary=False,
                                 column_encoding={**{c: "delta_binary_packed" for c in ints},
                                                  "s": "delta_byte_array", "bin": "delta_length_byte_array",
                                                  "b": "rle"})
    cases["flat_bss"] = _write(flat, use_dictionary=False, use_byte_stream_split=True)
    cases["flat_bss_cols"] = _write(flat, use_dictionary=False,
                                    column_encoding={"f32": "byte_stream_split", "f64": "alp",
                                                     "fsb": "byte_stream_split"})
    cases["flat_v2"] = _write(flat, data_page_version="2.0")
    cases["flat_v2_none"] = _write(flat, data_page_version="2.0", compression="none")
    cases["nested_v2"] = _write(nested, data_page_version="2.0", compression="zstd")
    cases["flat_dict_fallback"] = _write(flat, dictionary_pagesize_limit=64, data_page_size=512)
    cases["flat_small_pages"] = _write(flat, data_page_size=256, data_page_row_count_limit=50)
    cases["nested_small_pages"] = _write(nested, data_page_size=200, data_page_row_count_limit=40)
    cases["flat_no_stats"] = _write(flat, write_statistics=False)
    cases["flat_stats_some"] = _write(flat, write_statistics=["i32", "s"], statistics_truncate_length=3,
                                      column_index_truncate_length=2)
    cases["flat_page_stats"] = _write(flat, write_page_statistics=True)
    cases["flat_no_page_index"] = _write(flat, write_page_index=False)
    cases["flat_no_size_stats"] = _write(flat, write_size_statistics=False)
    cases["flat_crc"] = _write(flat, write_page_checksum=True)
    cases["nested_crc_v2"] = _write(nested, write_page_checksum=True, data_page_version="2.0")
    cases["flat_bloom"] = _write(flat, bloom_filter_options={None: True})
    cases["flat_bloom_ndv"] = _write(flat, bloom_filter_options={"s": {"ndv": 100, "fpp": 0.01},
                                                                 "i64": True})
    cases["nested_bloom"] = _write(nested, bloom_filter_options={None: True}, row_group_size=100)
    cases["flat_rg_rows"] = _write(flat, row_group_size=170)
    cases["flat_rg_bytes"] = _write(flat, row_group_bytes=20_000)
    cases["nested_rg_rows"] = _write(nested, row_group_size=64)
    cases["nested_rg_bytes"] = _write(nested, row_group_bytes=4_000)
    cases["flat_sorting"] = _write(flat, sorting_columns=[pc.SortingColumn(2), pc.SortingColumn(0, True, True)],
                                   row_group_size=200)
    cases["flat_kv"] = _write(flat, key_value_metadata={"a": "1", "b": "two"},
                              column_key_value_metadata={"s": {"x": "y"}}, created_by="matrix test")
    cases["flat_store_schema_off"] = _write(flat, store_schema=False)
    cases["flat_v1"] = _write(flat, version="1.0")
    cases["flat_v24"] = _write(flat, version="2.4")
    cases["flat_coerce_ms"] = _write(flat, coerce_timestamps="ms", allow_truncated_timestamps=True)
    cases["flat_int96"] = _write(flat, use_deprecated_int96_timestamps=True, int96_statistics=True)
    cases["flat_spark"] = _write(flat, flavor="spark")
    cases["flat_float_order"] = _write(flat, float_column_order="ieee754_total_order")
    cases["flat_threads"] = _write(flat, use_threads=True, row_group_size=250)
    cases["flat_no_threads"] = _write(flat, use_threads=False, row_group_size=250)
    cases["nested_threads"] = _write(nested, use_threads=True, row_group_size=100)
    cases["nested_legacy_list"] = _write(nested, legacy_list_layout=True)
    cases["nested_required"] = _write(lambda: _pc_nested_required()[0], _pc_nested_required()[1])
    cases["variant"] = _write(lambda: _variant()[0], _variant()[1])
    cases["variant_rg"] = _write(lambda: _variant()[0], _variant()[1], row_group_size=3,
                                 bloom_filter_options={None: True})
    cases["geospatial"] = _write(lambda: _geo()[0], _geo()[1])
    cases["file_refs"] = _write(lambda: _file_refs()[0], _file_refs()[1])
    cases["misc_types"] = _write(lambda: _misc_pc()[0], _misc_pc()[1])
    cases["numpy_dict"] = _write({"a": np.arange(1000, dtype=np.int64), "b": np.linspace(0, 1, 1000),
                                  "c": [None if i % 5 == 0 else f"v{i % 13}" for i in range(1000)]},
                                 row_group_size=300)
    cases["pylist_rows"] = _write({"x": [[1, 2], None, [], [3]], "y": [{"k": 1}, None, {"k": None}, {"k": 4}]})
    cases["pandas"] = _write(lambda: __import__("pandas").DataFrame(
        {"c": __import__("pandas").Categorical(["a", "b", "a"]), "n": __import__("pandas").array(
            [1, None, 3], dtype="Int64")}, index=__import__("pandas").Index([5, 6, 7], name="k")))
    cases["stream_reader"] = _write(lambda: pa.RecordBatchReader.from_batches(
        _flat().schema, _flat().to_batches(max_chunksize=97)), row_group_size=250)
    cases["writer_parts"] = _writer(lambda: [_flat().slice(0, 100), _flat().slice(100, 350),
                                             _flat().slice(450)], lambda: _flat().schema,
                                    extra_kv=True, row_group_size=200)
    cases["writer_nested_parts"] = _writer(lambda: [_nested().slice(0, 150), _nested().slice(150)],
                                           lambda: _nested().schema, row_group_size=70)
    # encryption (os.urandom is fixed while the matrix is written)
    for algo in ["AES_GCM_V1", "AES_GCM_CTR_V1"]:
        props = pc.FileEncryptionProperties(footer_key=FOOTER_KEY, algorithm=algo)
        cases[f"enc_{algo}"] = _write(flat, encryption=props, row_group_size=250, write_page_checksum=True)
        cols = pc.FileEncryptionProperties(footer_key=FOOTER_KEY, algorithm=algo,
                                           column_keys={"s": COLUMN_KEY, "i64": COLUMN_KEY},
                                           aad_prefix=b"matrix", footer_key_metadata=b"kf",
                                           column_key_metadata={"s": b"ks", "i64": "ki"})
        cases[f"enc_cols_{algo}"] = _write(flat, encryption=cols, bloom_filter_options={None: True},
                                           use_threads=True)
    cases["enc_plaintext_footer"] = _write(nested, encryption=pc.FileEncryptionProperties(
        footer_key=FOOTER_KEY, plaintext_footer=True, column_keys={"l.list.element": COLUMN_KEY}),
        row_group_size=100)
    cases["enc_no_store_aad"] = _write(flat, encryption=pc.FileEncryptionProperties(
        footer_key=FOOTER_KEY, aad_prefix=b"p", store_aad_prefix=False))
    # the write benchmark's variants (benchmarks/write_variants.py), page index on and off
    from benchmarks.write_variants import ALL_VARIANTS, pc_options

    for v in ALL_VARIANTS:
        for page_index in (True, False):
            cases[f"bench_{v.name}_{'pi' if page_index else 'nopi'}"] = _write(
                _bench, **pc_options(v, 1000, page_index))
    return cases


def digests(names: list[str] | None = None) -> dict[str, str]:
    """SHA-256 of every case's bytes (or of the *names* given)."""
    out = {}
    for name, case in _cases().items():
        if names is not None and name not in names:
            continue
        sink = io.BytesIO()
        try:
            with fixed_random():   # each case draws from the same stream
                case(sink)
        except Exception as exc:
            exc.add_note(f"write matrix case {name!r}")
            raise
        out[name] = hashlib.sha256(sink.getvalue()).hexdigest()
    return out


def main(argv: list[str]) -> int:
    got = digests()
    if "--update" in argv:
        DIGESTS.parent.mkdir(exist_ok=True)
        DIGESTS.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} digests to {DIGESTS}")
        return 0
    want = json.loads(DIGESTS.read_text())
    bad = sorted(k for k in want if got.get(k) != want[k])
    print(f"{len(want) - len(bad)}/{len(want)} identical; differing: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
