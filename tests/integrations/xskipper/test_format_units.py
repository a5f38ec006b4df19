"""Names, identifiers, PME labels, Java serialization and the sketch, against the spec's examples
and xskipper's ground-truth schema JSON files."""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest

from parquet_core_integrations.xskipper import (XskipperFormatError, column_name, decode_bloom_cell,
                                                table_identifier)
from parquet_core_integrations.xskipper.javaser import encode_bloom_cell, parse_stream
from parquet_core_integrations.xskipper.names import metadata_dir
from parquet_core_integrations.xskipper.pme import encryption_metadata, parse_column_keys, writer_options
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter, murmur3_bytes
from parquet_core_integrations.xskipper.writer import IndexColumn, spark_schema
from tests._support.xskipper import XSKIPPER


@pytest.mark.parametrize("cols,name", [
    (["mycol"], "mycol_minmax_5"), (["my_col"], "my_col_minmax_6"), (["my.col"], "my$#$col_minmax_8"),
    (["my#col"], "my##col_minmax_7"), (["my$_col"], "my$_col_minmax_7"),
    (["my$#._col"], "my$##$#$_col_minmax_12"), (["items.complex.min"], "items$#$complex$#$min_minmax_21"),
])
def test_column_names_v2_plus(cols, name):
    assert column_name(cols, "minmax") == name


def test_column_names_other_versions():
    assert column_name(["lat#", ".$", "lng.#"], "someindex") == "lat##_$#$$_lng$#$##_someindex_5-4-8"
    assert column_name(["a", "b"], "someindex", 1) == "a_b_someindex"
    assert column_name(["a", "b"], "someindex", 0) == "a:b_someindex"
    with pytest.raises(ValueError):
        column_name(["a"], "minmax", 5)


@pytest.mark.parametrize("uri,ident", [
    ("s3a://bucket/a/b/", "/a/b"), ("file:/tmp/data", "/tmp/data"), ("/tmp/data/", "/tmp/data"),
    ("hdfs://nn:8020/x//y", "/x/y"), ("/p/with%20space and blank", "/p/with%20space and blank"),
])
def test_table_identifier(uri, ident):
    assert table_identifier(uri) == ident


def test_metadata_dir_example_from_the_spec():
    d = metadata_dir("/md", "/tmp/xskipper_version_tests/input_datasets/vallist1/initial/csv")
    assert d == "/md/ea79e1a1c6e8743baac6738845a8ac69dd23b3c5e875e05478765f153500d5dc"
    assert metadata_dir("/md", "/tmp/data").endswith(hashlib.sha256(b"/tmp/data").hexdigest())


def _extraction(version, mode):
    with open(os.path.join(XSKIPPER, "parquet_version_tests", "schema_extraction", f"version={version}", mode,
                           "schema.json")) as fh:
        return json.load(fh)


@pytest.mark.parametrize("plaintext", [False, True])
def test_encrypted_schema_matches_xskipper(plaintext):
    """Our v4 schema for xskipper's PME unit-test indexes equals its ground-truth JSON."""
    truth = _extraction(4, "plaintext_footer" if plaintext else "encrypted_footer")
    indexes = [IndexColumn("minmax", ["temp"], "integer", None, "k1"),
               IndexColumn("bloomfilter", ["city"], "string",
                           {"io.xskipper.index.bloom.ndv": "100000", "io.xskipper.index.bloom.fpp": "0.01"}, "k1"),
               IndexColumn("valuelist", ["city"], "string")]
    enc = encryption_metadata([(i.kind, i.column, i.key_metadata) for i in indexes], "k1", plaintext,
                              ["virtual_dt", "virtual_year"])
    ours = spark_schema("foo/bar", [("dt", "date"), ("year", "string")], indexes, enc)
    truth["fields"][0]["nullable"] = True  # their JSON is the in-memory schema; files say nullable
    assert json.dumps(ours) == json.dumps(truth)  # key order included
    opts = writer_options(enc)
    assert opts["parquet.encryption.footer.key"] == opts["encryption.footer.key"] == "k1"
    assert ("parquet.encryption.plaintext.footer" in opts) == plaintext


def test_key_list_groups_and_rules():
    enc = encryption_metadata([("minmax", "temp_minmax_4", "k2"), ("valuelist", "city_valuelist_4", None),
                               ("bloomfilter", "vid_bloomfilter_3", "k1")], "k1", False, ["virtual_dt"])
    assert enc["encryption.column.keys"] == \
        "k2:temp_minmax_4.min,temp_minmax_4.max;k1:vid_bloomfilter_3,obj_name,virtual_dt"
    assert parse_column_keys(enc["encryption.column.keys"])["k1"] == ["vid_bloomfilter_3", "obj_name", "virtual_dt"]
    from parquet_core_integrations.xskipper import XskipperIndexError
    with pytest.raises(XskipperIndexError, match="footer key"):
        encryption_metadata([("minmax", "t", "k2")], None, False, [])
    with pytest.raises(XskipperIndexError, match="no index is encrypted"):
        encryption_metadata([("minmax", "t", None)], "k1", False, [])
    assert encryption_metadata([("minmax", "t", None)], None, False, []) is None


def test_murmur3_tail_bytes_are_sign_extended():
    # a 1-byte input >= 0x80 differs from the unsigned reading: Spark sign-extends tail bytes
    assert murmur3_bytes([b"\x80"], 0)[0] != murmur3_bytes([b"\x7f"], 0)[0]
    many = [bytes([i % 256]) * (i % 9) for i in range(10000)]  # several chunks, every tail length
    one_by_one = np.concatenate([murmur3_bytes([b], 0) for b in many[:50]])
    assert np.array_equal(murmur3_bytes(many, 0)[:50], one_by_one)


def test_v2_payload_round_trip_and_hashing():
    bf = SparkBloomFilter.create(1000, 0.03, version=2, seed=7)
    bf.put_strings(["a", "bc", "déf"])
    bf.put_longs([1, -5, 2**40])
    back = SparkBloomFilter.from_payload(bf.payload())
    assert back == bf and back.version == 2 and back.seed == 7
    assert all(back.might_contain(v) for v in ["a", "bc", "déf", 1, -5, 2**40])
    with pytest.raises(ValueError, match="V1"):
        encode_bloom_cell(bf)


@pytest.mark.parametrize("data,match", [
    (b"\x00\x01", "not a Java serialization"),
    (b"\xac\xed\x00\x05\x73\x72\x00", "truncated"),
    (b"\xac\xed\x00\x05\x99", "unsupported Java serialization type code"),
    (b"\xac\xed\x00\x05\x74\x00\x01a", "not hold a Java object"),
])
def test_bad_cells_fail_clearly(data, match):
    with pytest.raises(XskipperFormatError, match=match):
        decode_bloom_cell(data)


def test_truncated_payload_fails_clearly():
    cell = encode_bloom_cell(SparkBloomFilter.create(100, 0.1))
    with pytest.raises(XskipperFormatError):
        decode_bloom_cell(cell[:200] + cell[-1:])
    bad = bytearray(cell)
    assert parse_stream(bytes(bad)).class_name.endswith("BloomFilterMetaData")


@pytest.mark.parametrize("payload,match", [
    (bytes.fromhex("00000001 7fffffff 00000001") + bytes(8), "hash functions"),
    (bytes.fromhex("00000001 00000007 00000000"), "without any bit"),
    (bytes.fromhex("00000001 00000007 00000002") + bytes(8), "declares 2 words"),
    (bytes.fromhex("00000003 00000007 00000001") + bytes(8), "version 3"),
])
def test_hostile_payloads_fail_before_allocating(payload, match):
    with pytest.raises(XskipperFormatError, match=match):
        SparkBloomFilter.from_payload(payload)
