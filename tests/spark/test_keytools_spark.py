"""Key tools against parquet-java's, through Spark's Parquet reader and writer.

Spark reads and writes encrypted Parquet with parquet-java's
``PropertiesDrivenCryptoFactory`` when the Hadoop options name it and a KMS
client class. ``parquet_core/compat/java/PqcoreTestKms.java`` is that client: written on the
JDK's AES-GCM, wrapping like ``InMemoryKms`` (master key id as AAD), which
``parquet_core.compat.kms.define_test_kms`` compiles and loads into the session's JVM; parquet-java then unwraps the key
material our CryptoFactory wrote, and we unwrap what parquet-java wrote
(internal and external key material, single and double wrapping).
"""

from __future__ import annotations

import glob

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from tests._support.spark_checks import MASTER_KEYS, hadoop_crypto_options

pytestmark = pytest.mark.spark

DATA = {"i": list(range(40)), "s": [None if i % 7 == 0 else f"v{i}" for i in range(40)],
        "d": [i * 0.5 for i in range(40)]}


_hadoop_options = hadoop_crypto_options


def _schema():
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

    return StructType([StructField("i", LongType()), StructField("s", StringType()),
                       StructField("d", DoubleType())])


def _factory():
    return pc.CryptoFactory(lambda config: InMemoryKms(MASTER_KEYS))


@pytest.mark.parametrize("double,internal", [(True, True), (False, False)])
def test_spark_reads_files_our_key_tools_encrypted(kms_spark, tmp_path, double, internal):
    path = tmp_path / "ours.parquet"
    props = _factory().file_encryption_properties(None, pc.EncryptionConfiguration(
        footer_key="kf", column_keys="kc1:i,s;kc2:d", double_wrapping=double,
        internal_key_material=internal, data_key_length_bits=256), path)
    pc.write_table(DATA, path, encryption=props)
    assert (tmp_path / "_KEY_MATERIAL_FOR_ours.parquet.json").exists() == (not internal)
    df = kms_spark.read.options(**_hadoop_options()).schema(_schema()).parquet(str(path))
    rows = sorted(df.collect(), key=lambda r: r.i)
    assert [r.i for r in rows] == DATA["i"]
    assert [r.s for r in rows] == DATA["s"]
    assert [r.d for r in rows] == DATA["d"]


@pytest.mark.parametrize("double,internal,plaintext_footer", [
    (True, True, False), (False, True, True), (True, False, False)])
def test_we_read_files_spark_encrypted(kms_spark, tmp_path, double, internal, plaintext_footer):
    out = tmp_path / "spark_out"
    df = kms_spark.createDataFrame(list(zip(DATA["i"], DATA["s"], DATA["d"])), _schema())
    options = _hadoop_options(**{
        "parquet.encryption.footer.key": "kf",
        "parquet.encryption.column.keys": "kc1:i,s;kc2:d",
        "parquet.encryption.double.wrapping": str(double).lower(),
        "parquet.encryption.key.material.store.internally": str(internal).lower(),
        "parquet.encryption.plaintext.footer": str(plaintext_footer).lower(),
    })
    df.coalesce(1).write.options(**options).parquet(str(out))
    parts = sorted(glob.glob(str(out / "part-*.parquet")))
    assert len(parts) == 1
    materials = glob.glob(str(out / "_KEY_MATERIAL_FOR_part-*.json"))
    assert len(materials) == (0 if internal else 1)
    dec = _factory().file_decryption_properties(None, parquet_file_path=parts[0])
    got = pc.read_table(parts[0], decryption=dec).to_pydict()
    assert got == DATA
    with pytest.raises(pc.ParquetEncryptionError):  # encrypted for real: no keys, no data
        pc.read_table(parts[0], columns=["i"])
