"""parquet-java (Spark's Parquet reader) reads the files our writer encrypts.

Every algorithm x footer mode, uniform and per-column keys with a plaintext
column, several pages per chunk, Bloom filters and page indexes on. Keys go
through our key tools and the Java test KMS of ``test_keytools_spark``
(its fixture and options are reused). Besides the full read, an equality
filter is pushed down: parquet-java then consults statistics, the page
index and Bloom filters (its defaults), so their encrypted modules are
read too. Two tests write deliberately wrong (empty) Bloom filters and
(narrowed) column indexes: parquet-java dropping the matching rows shows it
decrypted those modules and acted on them.
"""

from __future__ import annotations

import itertools

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from tests._support.spark_checks import MASTER_KEYS
from tests._support.spark_checks import hadoop_crypto_options as _hadoop_options

pytestmark = pytest.mark.spark

N = 3000
DATA = {"i": list(range(N)), "s": [None if i % 7 == 0 else f"v{i % 300}" for i in range(N)],
        "d": [i * 0.25 for i in range(N)]}
LAYOUTS = {"uniform": None, "some_plaintext": "kc1:s;kc2:d"}
CASES = list(itertools.product(["AES_GCM_V1", "AES_GCM_CTR_V1"], [False, True], LAYOUTS))


def _schema():
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    return StructType([StructField("i", LongType()), StructField("s", StringType()),
                       StructField("d", DoubleType())])


def _write(path, algorithm, plaintext_footer, layout):
    factory = pc.CryptoFactory(lambda config: InMemoryKms(MASTER_KEYS))
    props = factory.file_encryption_properties(None, pc.EncryptionConfiguration(
        footer_key="kf", column_keys=LAYOUTS[layout], uniform_encryption=layout == "uniform",
        encryption_algorithm=algorithm, plaintext_footer=plaintext_footer, double_wrapping=False))
    pc.write_table(DATA, path, encryption=props, bloom_filter_options={"i": True, "s": True},
                   write_page_index=True, write_page_checksum=True, data_page_row_count_limit=500,
                   row_group_size=1500)


@pytest.mark.parametrize("algorithm,plaintext_footer,layout", CASES)
def test_spark_reads_our_encrypted_file(kms_spark, tmp_path, algorithm, plaintext_footer, layout):
    path = tmp_path / "ours.parquet"
    _write(path, algorithm, plaintext_footer, layout)
    df = kms_spark.read.options(**_hadoop_options()).schema(_schema()).parquet(str(path))
    rows = sorted(df.collect(), key=lambda r: r.i)
    assert [r.i for r in rows] == DATA["i"]
    assert [r.s for r in rows] == DATA["s"]
    assert [r.d for r in rows] == DATA["d"]
    hit = df.filter("i = 2346 and s = 'v246'").collect()
    assert [(r.i, r.s, r.d) for r in hit] == [(2346, "v246", 2346 * 0.25)]
    assert df.filter("s = 'absent'").count() == 0


def test_spark_reads_plaintext_columns_without_keys(kms_spark, tmp_path):
    path = tmp_path / "ours.parquet"
    _write(path, "AES_GCM_V1", True, "some_plaintext")
    from pyspark.sql.types import LongType, StructField, StructType

    df = kms_spark.read.schema(StructType([StructField("i", LongType())])).parquet(str(path))
    assert sorted(r.i for r in df.collect()) == DATA["i"]


@pytest.mark.parametrize("algorithm,plaintext_footer,layout",
                         [("AES_GCM_V1", False, "some_plaintext"), ("AES_GCM_CTR_V1", True, "uniform")])
def test_parquet_java_decrypts_and_uses_our_bloom_filters(kms_spark, tmp_path, monkeypatch,
                                                          algorithm, plaintext_footer, layout):
    # Written with every Bloom filter left empty ("no value is here"): a reader that
    # decrypts and consults them drops every row group for an equality filter that
    # statistics and dictionaries cannot rule out. Proves parquet-java reads our
    # encrypted Bloom filter modules (header and bitset) and acts on them.
    from parquet_core.bloom_filter.sbbf import SplitBlockBloomFilter

    monkeypatch.setattr(SplitBlockBloomFilter, "insert_hashes", lambda self, hashes: None)
    path = tmp_path / "empty_blooms.parquet"
    _write(path, algorithm, plaintext_footer, layout)
    df = kms_spark.read.options(**_hadoop_options()).schema(_schema()).parquet(str(path))
    assert df.filter("s = 'v246'").count() == 0
    # the data is there: without pushdown the row is found
    no_pushdown = _hadoop_options(**{"parquet.filter.bloom.enabled": "false"})
    df2 = kms_spark.read.options(**no_pushdown).schema(_schema()).parquet(str(path))
    assert df2.filter("s = 'v246'").count() == 8


@pytest.mark.parametrize("algorithm,plaintext_footer,layout",
                         [("AES_GCM_V1", True, "uniform"), ("AES_GCM_CTR_V1", False, "some_plaintext")])
def test_parquet_java_decrypts_and_uses_our_page_indexes(kms_spark, tmp_path, monkeypatch,
                                                         algorithm, plaintext_footer, layout):
    # Written with column indexes that claim every page of `i` holds only its first
    # value (max = min): a reader that decrypts the ColumnIndex and OffsetIndex and
    # filters pages with them skips the page holding i = 2346.
    from parquet_core.metadata.page_index import PageIndexBuilder

    real = PageIndexBuilder.column_index

    def lying(self):
        ci = real(self)
        if ci is not None and self.desc.dotted_path == "i":
            ci.max_values = list(ci.min_values)
        return ci

    monkeypatch.setattr(PageIndexBuilder, "column_index", lying)
    path = tmp_path / "lying_index.parquet"
    _write(path, algorithm, plaintext_footer, layout)
    df = kms_spark.read.options(**_hadoop_options()).schema(_schema()).parquet(str(path))
    assert df.filter("i = 2346").count() == 0
    no_index = _hadoop_options(**{"parquet.filter.columnindex.enabled": "false"})
    df2 = kms_spark.read.options(**no_index).schema(_schema()).parquet(str(path))
    assert df2.filter("i = 2346").count() == 1
