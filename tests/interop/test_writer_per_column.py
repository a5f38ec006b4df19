"""Every per-column option takes ``{column: value}`` with a ``None`` default, as the README says.

For each option, three spellings are written and pyarrow reports what each
column chunk got (codec, dictionary page, encodings, statistics, Bloom
filter, key/value metadata, compressed size):

* ``{None: x, "b": y}``: column ``b`` gets ``y``, every other column ``x``;
* ``{"b": y}``: ``b`` gets ``y``, the others keep the documented default;
* a plain ``x``: every column gets ``x``.
"""

from __future__ import annotations

import io

import pytest

import parquet_core as pc

pq = pytest.importorskip("pyarrow.parquet")

N = 2_000
LONG = "z" * 200


def _data() -> dict[str, list]:
    # a: strings, b: strings, c: int64 (every probe below applies to all three)
    return {"a": [f"{LONG}{i % 7}" for i in range(N)], "b": [f"{LONG}{i % 5}" for i in range(N)],
            "c": list(range(N))}


def _chunks(**options) -> dict[str, object]:
    buf = io.BytesIO()
    pc.write_table(_data(), buf, **options)
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    return {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i) for i in range(md.num_columns)}


def _stats_len(c) -> int | None:
    s = c.statistics
    return None if s is None or not s.has_min_max else len(s.max_raw if isinstance(s.max_raw, bytes) else b"")


#: option -> (value x, value y, probe of a column chunk, what x gives, what y gives, what the default gives)
CASES = {
    "compression": ("zstd", "gzip", lambda c: c.compression, "ZSTD", "GZIP", "SNAPPY"),
    "compression_level": (0, 9, lambda c: c.total_compressed_size < c.total_uncompressed_size / 4,
                          False, True, True),
    "use_dictionary": (False, True, lambda c: c.has_dictionary_page, False, True, True),
    "column_encoding": ("plain", "delta_byte_array",
                        lambda c: tuple(sorted(e for e in c.encodings if e not in ("RLE", "BIT_PACKED"))),
                        ("PLAIN",), ("DELTA_BYTE_ARRAY",), ("PLAIN", "RLE_DICTIONARY")),
    "write_statistics": (False, True, lambda c: c.is_stats_set and c.statistics.has_min_max, False, True, True),
    "bloom_filter_options": ({"ndv": 10}, True, lambda c: c.bloom_filter_offset is not None, True, True, False),
    "column_key_value_metadata": ({"k": "x"}, {"k": "y"}, lambda c: c.metadata,
                                  {b"k": b"x"}, {b"k": b"y"}, None),
}
EXTRA = {"compression_level": dict(compression="gzip", use_dictionary=False)}


@pytest.mark.parametrize("option", list(CASES))
def test_none_key_is_the_default_of_unnamed_columns(option):
    x, y, probe, got_x, got_y, _ = CASES[option]
    extra = EXTRA.get(option, {})
    if option == "column_encoding":   # the int column takes its own encoding
        value = {None: x, "b": y, "c": "delta_binary_packed"}
    else:
        value = {None: x, "b": y}
    chunks = _chunks(**{option: value}, **extra)
    assert probe(chunks["a"]) == got_x
    assert probe(chunks["b"]) == got_y
    if option != "column_encoding":
        assert probe(chunks["c"]) == got_x


@pytest.mark.parametrize("option", list(CASES))
def test_unnamed_columns_keep_the_default_without_a_none_key(option):
    _, y, probe, _, got_y, got_default = CASES[option]
    chunks = _chunks(**{option: {"b": y}}, **EXTRA.get(option, {}))
    assert probe(chunks["b"]) == got_y
    assert probe(chunks["a"]) == got_default


@pytest.mark.parametrize("option", [o for o in CASES if o not in ("bloom_filter_options", "column_key_value_metadata")])
def test_a_single_value_applies_to_every_column(option):
    x, _, probe, got_x, _, _ = CASES[option]
    chunks = _chunks(**{option: x}, **EXTRA.get(option, {}))
    assert probe(chunks["a"]) == probe(chunks["b"]) == got_x


def test_use_byte_stream_split_mapping():
    data = {"f": [float(i) / 3 for i in range(N)], "g": [float(i) / 7 for i in range(N)],
            "h": [float(i) / 9 for i in range(N)]}
    buf = io.BytesIO()
    pc.write_table(data, buf, use_byte_stream_split={None: True, "g": False})
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    bss = {md.row_group(0).column(i).path_in_schema: "BYTE_STREAM_SPLIT" in md.row_group(0).column(i).encodings
           for i in range(3)}
    assert bss == {"f": True, "g": False, "h": True}


def test_statistics_truncate_length_mapping():
    chunks = _chunks(statistics_truncate_length={None: 16, "b": None})
    assert _stats_len(chunks["a"]) <= 16
    assert _stats_len(chunks["b"]) == len(LONG) + 1


def test_bloom_filter_default_skips_boolean_columns_but_a_named_one_is_refused():
    buf = io.BytesIO()
    pc.write_table({"flag": [True, False], "n": [1, 2]}, buf, bloom_filter_options={None: True})
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    assert [md.row_group(0).column(i).bloom_filter_offset is not None for i in range(2)] == [False, True]
    with pytest.raises(ValueError, match="BOOLEAN"):
        pc.write_table({"flag": [True, False]}, io.BytesIO(), bloom_filter_options={"flag": True})


def test_column_index_truncate_length_mapping_resolves_per_column():
    from parquet_core.options import writer_options

    opts = writer_options(["a", "b"], column_index_truncate_length={None: 8, "b": None})
    assert (opts.column("a").column_index_truncate_length, opts.column("b").column_index_truncate_length) == (8, None)


@pytest.mark.parametrize("options, error", [
    (dict(compression={"nope": "zstd"}), ValueError),
    (dict(compression=["a"]), TypeError),                # a list only switches boolean options on
    (dict(use_dictionary={None: "yes"}), TypeError),
    (dict(compression_level={None: "high"}), TypeError),
    (dict(bloom_filter_options={"nope": True}), ValueError),
    (dict(column_key_value_metadata={"nope": {"k": "v"}}), ValueError),
])
def test_bad_per_column_values_are_refused(options, error):
    with pytest.raises(error):
        pc.write_table(_data(), io.BytesIO(), **options)


def test_compression_none_means_uncompressed_as_in_pyarrow():
    chunks = _chunks(compression=None)
    assert {c.compression for c in chunks.values()} == {"UNCOMPRESSED"}
    chunks = _chunks(compression={None: None, "b": "zstd"})
    assert (chunks["a"].compression, chunks["b"].compression) == ("UNCOMPRESSED", "ZSTD")


def test_list_form_switches_exactly_the_named_columns_on():
    chunks = _chunks(use_dictionary=["b"])
    assert [chunks[k].has_dictionary_page for k in "abc"] == [False, True, False]
