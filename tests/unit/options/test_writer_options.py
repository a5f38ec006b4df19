"""The writer option table is the one definition: checks, defaults, resolution, coverage.

* every option refuses a bad value with a message naming it (a new option
  must add its case to ``BAD``), through ``writer_options`` and ``pc.write_table``;
* the defaults applied are the table's, and ``WriterOptions`` / ``FormatOptions`` /
  ``ColumnOptions`` have no defaults of their own for an option (one place);
* unknown names are refused, also by ``write_to_dataset`` before any folder is made;
* the option objects are frozen;
* a file written with each option set to a non-default value reads back in
  pyarrow with the values written (a new option must add its case to ``GOOD``).
"""

from __future__ import annotations

import dataclasses
import io
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import parquet_core as pc
from parquet_core.constants import PhysicalType
from parquet_core.options import (
    WRITER_DEFAULTS, WRITER_OPTIONS, ColumnOptions, FormatOptions, WriterOption, WriterOptions,
    check_option, format_options, writer_arguments, writer_options,
)
from parquet_core.options import _RESOLVERS   # the per-column options resolved by rules of their own

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

COLUMNS = ["a", "x", "s"]
PTYPES = {"a": PhysicalType.INT64, "x": PhysicalType.DOUBLE, "s": PhysicalType.BYTE_ARRAY}

#: option -> a value of the wrong type or outside its allowed set
BAD = {
    "version": "3.0",
    "flavor": "hive",
    "use_deprecated_int96_timestamps": "yes",
    "coerce_timestamps": "ns",
    "allow_truncated_timestamps": 1,
    "compression": "zip",
    "compression_level": "high",
    "use_dictionary": "yes",
    "column_encoding": "fancy",
    "use_byte_stream_split": "yes",
    "write_statistics": "no",
    "statistics_truncate_length": -1,
    "column_index_truncate_length": 0,
    "bloom_filter_options": ["a"],
    "column_key_value_metadata": "k=v",
    "data_page_version": "3.0",
    "data_page_size": -5,
    "data_page_row_count_limit": 0,
    "dictionary_pagesize_limit": "big",
    "row_group_size": 0,
    "row_group_bytes": -1,
    "write_page_index": "yes",
    "write_page_statistics": "yes",
    "write_size_statistics": 1,
    "write_page_checksum": "true",
    "sorting_columns": "a",
    "key_value_metadata": ["k"],
    "created_by": 5,
    "validate_utf8": None,
    "legacy_list_layout": "yes",
    "use_compliant_nested_type": "no",
    "write_time_adjusted_to_utc": 1,
    "encryption": b"0123456789012345",
    "store_schema": "yes",
    "float_column_order": "total",
    "int96_statistics": "yes",
    "use_threads": "yes",
    "compatible_with": "oracle-9",
}

#: a bad value given for one leaf of a per-column option
BAD_FOR_A_LEAF = {
    "compression": 2.5, "compression_level": 1.5, "use_dictionary": "no", "column_encoding": "rle_dictionary",
    "use_byte_stream_split": 1, "write_statistics": None, "statistics_truncate_length": 0,
    "column_index_truncate_length": "x", "bloom_filter_options": {"fpp": 2.0},
    "column_key_value_metadata": "k",
}


def test_every_option_has_a_bad_value_case():
    assert set(BAD) == set(WRITER_DEFAULTS)
    assert set(BAD_FOR_A_LEAF) == {o.name for o in WRITER_OPTIONS if o.per_column}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_value_is_refused_naming_the_option(name):
    with pytest.raises((TypeError, ValueError), match=name):
        writer_options(COLUMNS, PTYPES, **{name: BAD[name]})


@pytest.mark.parametrize("name", list(BAD_FOR_A_LEAF))
def test_bad_leaf_value_is_refused_naming_the_option(name):
    with pytest.raises((TypeError, ValueError), match=name):
        writer_options(COLUMNS, PTYPES, **{name: {"s": BAD_FOR_A_LEAF[name]}})
    with pytest.raises(ValueError, match=name):   # and a leaf that does not exist
        writer_options(COLUMNS, PTYPES, **{name: {"nope": WRITER_DEFAULTS[name]}})


@pytest.mark.parametrize("name", ["compression", "row_group_size", "encryption", "store_schema", "version"])
def test_write_table_refuses_before_writing(tmp_path, name):
    with pytest.raises((TypeError, ValueError), match=name):
        pc.write_table({"a": [1, 2]}, tmp_path / "x.parquet", **{name: BAD[name]})
    assert not list(tmp_path.iterdir())


def test_unknown_names_are_refused(tmp_path):
    with pytest.raises(TypeError, match="compresion, rowgroupsize"):
        writer_arguments({"compresion": "zstd", "rowgroupsize": 3, "version": "2.6"})
    with pytest.raises(TypeError, match="compresion"):
        writer_options(COLUMNS, compresion="zstd")
    with pytest.raises(TypeError, match="compresion"):
        format_options(compresion="zstd")
    with pytest.raises(TypeError, match="compresion"):
        pc.write_to_dataset({"a": [1], "k": [2]}, tmp_path / "ds", partition_cols=["k"], compresion="zstd")
    assert not (tmp_path / "ds").exists()


def _resolved_default(option):
    value = option.check(option.name, option.default)
    if option.name == "write_page_statistics":       # None: not write_page_index
        return not WRITER_DEFAULTS["write_page_index"]
    if option.name == "use_deprecated_int96_timestamps":   # None: on only with flavor="spark"
        return WRITER_DEFAULTS["flavor"] == "spark"
    return value


def test_applied_defaults_are_the_tables():
    opts = writer_options(COLUMNS, PTYPES)
    format_fields = {f.name for f in dataclasses.fields(FormatOptions)}
    for o in WRITER_OPTIONS:
        if o.per_column and o.target is not None:
            assert getattr(opts.defaults, o.target) == _resolved_default(o), o.name
        elif o.per_column:
            assert o.name in _RESOLVERS, o.name
        elif o.name in format_fields:
            assert getattr(opts.format, o.name) == _resolved_default(o), o.name
        else:
            assert getattr(opts, o.name) == _resolved_default(o), o.name
    # the defaults of the per-column options that have resolvers: nothing on
    assert not opts.defaults.bloom_filter and opts.defaults.key_value_metadata is None
    assert opts.defaults.encoding is None and opts.columns.get("x") is None   # no BSS by default


def test_option_objects_are_made_of_the_table():
    """Every option lands in exactly one place, and none of those places has a default of its own."""
    names = {o.name for o in WRITER_OPTIONS}
    format_fields = {f.name for f in dataclasses.fields(FormatOptions)}
    writer_fields = {f.name for f in dataclasses.fields(WriterOptions)} - {"format", "defaults", "columns"}
    file_wide = {o.name for o in WRITER_OPTIONS if not o.per_column}
    assert format_fields <= file_wide
    assert writer_fields == file_wide - format_fields
    column_fields = {f.name for f in dataclasses.fields(ColumnOptions)}
    targets = {o.target for o in WRITER_OPTIONS if o.per_column and o.target is not None}
    assert targets <= column_fields
    assert {o.name for o in WRITER_OPTIONS if o.per_column and o.target is None} == set(_RESOLVERS)
    assert set(_RESOLVERS) <= names
    for cls in (WriterOptions, FormatOptions):
        with_default = [f.name for f in dataclasses.fields(cls)
                        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING]
        assert with_default in ([], ["columns"]), cls
    for f in dataclasses.fields(ColumnOptions):   # the targets are always set from the table
        if f.name in targets:
            assert f.default is dataclasses.MISSING, f.name
    for o in WRITER_OPTIONS:
        assert " ".join(o.doc.split()), o.name


def test_frozen():
    opts = writer_options(COLUMNS, PTYPES)
    for obj, attr in ((opts, "row_group_size"), (opts.format, "version"), (opts.defaults, "compression")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)


def test_check_option_names_the_option_when_the_check_does_not():
    demo = WriterOption("demo", 0, "int", "A demonstration.", check=lambda name, value: int(value))
    with pytest.raises(ValueError, match=r"^demo: invalid literal"):
        check_option(demo, "x")
    with pytest.raises(ValueError, match=r"^demo\['a'\]: "):
        check_option(demo, "x", "demo['a']")
    # an entry of sorting_columns of the wrong shape
    with pytest.raises(TypeError, match=r"^sorting_columns: "):
        writer_options(COLUMNS, PTYPES, sorting_columns=[2.5])
    with pytest.raises(ValueError, match="sorting_columns"):
        writer_options(COLUMNS, PTYPES, sorting_columns=[("a", "sideways")])


def test_writer_arguments_and_format_options_run_once_per_writer(monkeypatch):
    """ParquetWriter resolves its keyword arguments once and hands them, and its
    FormatOptions, to writer_options instead of resolving and checking them again."""
    import parquet_core.file.writer as writer_module
    import parquet_core.options as options_module

    calls = []
    real_args, real_fmt = options_module.writer_arguments, options_module.resolved_format_options
    for module in (writer_module, options_module):
        monkeypatch.setattr(module, "writer_arguments", lambda kw: calls.append("args") or real_args(kw))
        monkeypatch.setattr(module, "resolved_format_options",
                            lambda args: calls.append("format") or real_fmt(args))
    with pc.ParquetWriter(io.BytesIO(), pc.schema([pc.field("a", pc.int64())]), compression="zstd"):
        pass
    assert calls == ["args", "format"]
    calls.clear()
    pc.write_table({"a": [1, 2]}, io.BytesIO(), chunk_size=1)   # pyarrow's name, resolved once
    assert calls == ["args", "format"]


# -- every option, written by us, read by pyarrow ------------------------------------------------

def _table():
    n = 40
    ts = np.datetime64("2024-01-02T03:04:05.006", "us") + np.arange(n).astype("timedelta64[ms]")
    return pa.table({
        "a": pa.array(np.arange(n, dtype=np.int64) % 9),
        "x": pa.array(np.linspace(-1.5, 2.5, n)),
        "s": pa.array([None if i % 5 == 0 else f"value-{i % 6}" for i in range(n)]),
        "t": pa.array(ts, pa.timestamp("us")),
        "l": pa.array([[i, i + 1] if i % 3 else [] for i in range(n)], pa.list_(pa.int64())),
    })


#: option -> a non-default value, and what pyarrow should see in the file's metadata (or None)
GOOD = {
    "version": ("1.0", lambda md: md.format_version == "1.0"),
    "flavor": ("spark", lambda md: md.schema.column(3).physical_type == "INT96"),
    "use_deprecated_int96_timestamps": (True, lambda md: md.schema.column(3).physical_type == "INT96"),
    "coerce_timestamps": ("ms", lambda md: "milliseconds" in str(md.schema.column(3).logical_type)),
    "allow_truncated_timestamps": (True, None),
    "compression": ("zstd", lambda md: md.row_group(0).column(0).compression == "ZSTD"),
    "compression_level": ({"s": 3}, None),
    "use_dictionary": (False, lambda md: "RLE_DICTIONARY" not in md.row_group(0).column(0).encodings),
    "column_encoding": ({"a": "delta_binary_packed"},
                        lambda md: "DELTA_BINARY_PACKED" in md.row_group(0).column(0).encodings),
    "use_byte_stream_split": (True, lambda md: "BYTE_STREAM_SPLIT" in md.row_group(0).column(1).encodings),
    "write_statistics": (False, lambda md: not md.row_group(0).column(0).is_stats_set),
    "statistics_truncate_length": (2, lambda md: len(md.row_group(0).column(2).statistics.min) <= 2),
    "column_index_truncate_length": (2, None),
    "bloom_filter_options": ({"a": True}, None),
    "column_key_value_metadata": ({"a": {"k": "v"}}, None),
    "data_page_version": ("2.0", None),
    "data_page_size": (64, None),
    "data_page_row_count_limit": (7, None),
    "dictionary_pagesize_limit": (16, None),
    "row_group_size": (11, lambda md: md.num_row_groups == 4),
    "row_group_bytes": (400, lambda md: md.num_row_groups > 1),
    "write_page_index": (False, lambda md: not md.row_group(0).column(0).has_offset_index),
    "write_page_statistics": (True, None),
    "write_size_statistics": (False, None),
    "write_page_checksum": (True, None),
    "sorting_columns": (["a"], lambda md: md.row_group(0).sorting_columns[0].column_index == 0),
    "key_value_metadata": ({"k": "v"}, lambda md: md.metadata[b"k"] == b"v"),
    "created_by": ("tester version 1", lambda md: md.created_by == "tester version 1"),
    "validate_utf8": (False, None),
    "legacy_list_layout": (True, None),
    "use_compliant_nested_type": (False, None),
    "write_time_adjusted_to_utc": (True, None),
    "encryption": (None, None),    # read back below, with the key
    "store_schema": (False, lambda md: b"ARROW:schema" not in (md.metadata or {})),
    "float_column_order": ("ieee754_total_order", None),
    "int96_statistics": (True, None),
    "use_threads": (False, None),
    "compatible_with": ("pyarrow", None),
}


def test_every_option_has_a_round_trip_case():
    assert set(GOOD) == set(WRITER_DEFAULTS)


@pytest.mark.parametrize("name", [n for n in GOOD if n != "encryption"])
def test_each_option_writes_a_file_pyarrow_reads(tmp_path, name):
    value, effect = GOOD[name]
    assert value != WRITER_DEFAULTS[name]
    table = _table()
    path = tmp_path / f"{name}.parquet"
    pc.write_table(table, path, **{name: value})
    got = pq.read_table(path)
    assert got.column_names == table.column_names
    for col in table.column_names:
        assert got.column(col).to_pylist() == table.column(col).to_pylist(), (name, col)
    if effect is not None:
        assert effect(pq.ParquetFile(path).metadata), name


def test_encryption_option_round_trip(tmp_path):
    key = b"0123456789012345"
    table = _table()
    path = tmp_path / "enc.parquet"
    pc.write_table(table, path, encryption=pc.FileEncryptionProperties(footer_key=key))
    with pytest.raises(pc.ParquetEncryptionError):
        pc.read_metadata(path)
    got = pc.read_table(path, decryption_properties=pc.FileDecryptionProperties(footer_key=key))
    assert got.to_arrow().cast(table.schema).equals(table)


def test_docs_table_lists_every_option():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "writing.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for o in WRITER_OPTIONS:
        assert any(f"`{o.name}`" in row.split("|")[1] for row in rows), o.name


# -- per-leaf resolution against a plain model ------------------------------------------------------

_LEAF_TYPES = [PhysicalType.INT64, PhysicalType.DOUBLE, PhysicalType.BYTE_ARRAY, PhysicalType.BOOLEAN]
_VALUES = {
    "compression": st.sampled_from(["snappy", "zstd", "gzip", None, "NONE"]),
    "compression_level": st.one_of(st.none(), st.integers(-5, 20)),
    "use_dictionary": st.booleans(),
    "column_encoding": st.sampled_from([None, "plain"]),
    "write_statistics": st.booleans(),
    "statistics_truncate_length": st.one_of(st.none(), st.integers(1, 100)),
    "column_index_truncate_length": st.one_of(st.none(), st.integers(1, 100)),
}


@st.composite
def _case(draw):
    n = draw(st.integers(1, 5))
    columns = [f"c{i}" for i in range(n)]
    ptypes = {c: draw(st.sampled_from(_LEAF_TYPES)) for c in columns}
    given_options = {}
    for name, values in _VALUES.items():
        form = draw(st.sampled_from(["absent", "scalar", "mapping", "mapping+default"]))
        if form == "scalar":
            given_options[name] = draw(values)
        elif form != "absent":
            named = draw(st.lists(st.sampled_from(columns), unique=True))
            mapping = {c: draw(values) for c in named}
            if form == "mapping+default":
                mapping[None] = draw(values)
            given_options[name] = mapping
    return columns, ptypes, given_options


def _model_value(name, given_options, column):
    """What the writing guide says: a scalar for every leaf; a mapping's entry, else its None key, else
    the table's default."""
    value = given_options.get(name, WRITER_DEFAULTS[name])
    if isinstance(value, dict):
        value = value.get(column, value.get(None, WRITER_DEFAULTS[name]))
    return value


@settings(max_examples=200, deadline=None)
@given(_case())
def test_per_leaf_resolution_matches_the_rules(case):
    columns, ptypes, given_options = case
    opts = writer_options(columns, ptypes, **given_options)
    codes = {"snappy": 1, "gzip": 2, "zstd": 6, None: 0, "NONE": 0}
    for c in columns:
        leaf = opts.column(c)
        assert leaf.compression == codes[_model_value("compression", given_options, c)]
        assert leaf.compression_level == _model_value("compression_level", given_options, c)
        encoding = _model_value("column_encoding", given_options, c)
        assert leaf.encoding == (None if encoding is None else 0)   # PLAIN
        # an explicit encoding, or a BOOLEAN leaf, means no dictionary
        dictionary = _model_value("use_dictionary", given_options, c)
        if encoding is not None or ptypes[c] == PhysicalType.BOOLEAN:
            dictionary = False
        assert leaf.use_dictionary is dictionary
        assert leaf.write_statistics is _model_value("write_statistics", given_options, c)
        for name in ("statistics_truncate_length", "column_index_truncate_length"):
            assert getattr(leaf, name) == _model_value(name, given_options, c)
