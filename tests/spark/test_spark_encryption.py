"""Encrypted files through ``format("pqcore")`` / ``format("pqmeta")`` with keys given as options.

Outside truths: parquet-cpp / parquet-java encrypted corpus files, whose
values polars reads with the raw keys; files we write through Spark are
read back by polars with the raw keys (explicit keys) or unwrapped through
the parquet-java-compatible key tools (KMS).
"""

from __future__ import annotations

import base64
import os
import shutil

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from tests.encryption.corpus_keys import COLUMNS_16, FOOTER_16

pytestmark = pytest.mark.spark
pl = pytest.importorskip("polars")

P = "parquet.encryption."
EXPLICIT = {P + "footer.key": FOOTER_16.decode(),
            P + "column.keys": f"{COLUMNS_16['double_field'].decode()}:double_field;"
                               f"{COLUMNS_16['float_field'].decode()}:float_field"}
KEY_LIST = ", ".join(f"{kid}:{base64.b64encode(key).decode()}" for kid, key in
                     [("kf", FOOTER_16), ("kc1", COLUMNS_16["double_field"]),
                      ("kc2", COLUMNS_16["float_field"])])


def _read(spark, path, **options):
    reader = spark.read.format("pqcore")
    for k, v in options.items():
        reader = reader.option(k, v)
    return reader.load(str(path))


@pytest.mark.parametrize("name", ["encrypt_columns_and_footer.parquet.encrypted",
                                  "encrypt_columns_and_footer_ctr.parquet.encrypted",
                                  "encrypt_columns_plaintext_footer.parquet.encrypted"])
def test_corpus_file_reads_with_keys_as_options(pqcore_spark, corpus, name):
    df = _read(pqcore_spark, corpus / name, **EXPLICIT)
    cols = ["int32_field", "double_field", "float_field", "ba_field"]
    rows = df.select(*cols).collect()
    twin = name.replace("_ctr", "")  # polars has no CTR; the CTR file holds the same data
    expected = pl.read_parquet(corpus / twin, columns=cols, decryption=pl.ParquetDecryptionProperties(
        footer_key=FOOTER_16, column_keys=COLUMNS_16))
    assert [tuple(r) for r in rows] == list(expected.iter_rows())


def test_missing_key_fails_clearly(pqcore_spark, corpus):
    from pyspark.errors import PySparkException

    opts = {P + "footer.key": FOOTER_16.decode()}  # no column keys
    with pytest.raises(PySparkException, match="double_field|float_field"):
        _read(pqcore_spark, corpus / "encrypt_columns_and_footer.parquet.encrypted",
              **opts).select("double_field").collect()


def test_kms_options_read_parquet_java_external_key_material(pqcore_spark, corpus):
    df = _read(pqcore_spark, corpus / "external_key_material_java.parquet.encrypted",
               **{P + "kms.client.class": "InMemoryKms", P + "key.list": KEY_LIST})
    rows = df.orderBy("integers").collect()
    # Arrow's test suite documents this file: integers 0..99, strings "a0", "b1", ...
    assert [r["integers"] for r in rows] == list(range(100))
    assert [r["strings"] for r in rows[:3]] == ["a0", "b1", "c2"]


def test_write_with_explicit_keys_read_by_polars(pqcore_spark, tmp_path):
    spark = pqcore_spark
    out = tmp_path / "enc"
    key = "hex:" + (b"s" * 16).hex()
    opts = {P + "footer.key": FOOTER_16.decode(), P + "column.keys": f"{key}:secret",
            "partitionBy": "part"}
    df = spark.createDataFrame([(i, f"v{i}", i % 2) for i in range(40)], "secret long, public string, part int")
    writer = df.write.format("pqcore").mode("overwrite")
    for k, v in opts.items():
        writer = writer.option(k, v)
    writer.save(str(out))
    files = sorted(out.rglob("*.parquet"))
    assert files and all(f.read_bytes()[-4:] == b"PARE" for f in files)
    seen = []
    for f in files:
        got = pl.read_parquet(f, decryption=pl.ParquetDecryptionProperties(
            footer_key=FOOTER_16, column_keys={"secret": b"s" * 16}))
        seen += list(zip(got["secret"].to_list(), got["public"].to_list()))
    assert sorted(seen) == [(i, f"v{i}") for i in range(40)]
    back = _read(spark, out, **{k: v for k, v in opts.items() if k != "partitionBy"})
    assert sorted(tuple(r) for r in back.select("secret", "public", "part").collect()) == \
        [(i, f"v{i}", i % 2) for i in range(40)]
    with pytest.raises(Exception, match="(?i)encrypt"):  # noqa: B017 (Spark wraps the error)
        _read(spark, out).collect()  # no keys: the footer cannot be read


def test_write_with_kms_external_material_commits_material(pqcore_spark, tmp_path):
    spark = pqcore_spark
    out = tmp_path / "kms"
    opts = {P + "kms.client.class": "InMemoryKms", P + "key.list": KEY_LIST,
            P + "footer.key": "kf", P + "column.keys": "kc1:secret",
            P + "key.material.store.internally": "false", P + "algorithm": "AES_GCM_CTR_V1"}
    df = spark.createDataFrame([(i, i * 2) for i in range(30)], "secret long, other long").repartition(2)
    w = df.write.format("pqcore").mode("overwrite")
    for k, v in opts.items():
        w = w.option(k, v)
    w.save(str(out))
    files = sorted(out.glob("*.parquet"))
    assert files
    for f in files:  # each file's key material moved into place with it
        assert (out / f"_KEY_MATERIAL_FOR_{f.name}.json").exists()
    assert not [n for n in os.listdir(out) if n.startswith("_pqcore_staging")]
    # read through our key tools directly, outside Spark
    factory = pc.CryptoFactory(lambda _cfg: InMemoryKms(
        {"kf": FOOTER_16, "kc1": COLUMNS_16["double_field"], "kc2": COLUMNS_16["float_field"]}))
    got = []
    for f in files:
        props = factory.file_decryption_properties(pc.KmsConnectionConfig(), None, str(f))
        got += pc.read_table(f, decryption=props).column("secret").to_pylist()
    assert sorted(got) == list(range(30))
    # an overwrite removes the old files' key material too
    w.save(str(out))
    names = os.listdir(out)
    parts = [n for n in names if n.endswith(".parquet")]
    materials = [n for n in names if n.startswith("_KEY_MATERIAL_FOR_")]
    assert sorted(materials) == sorted(f"_KEY_MATERIAL_FOR_{n}.json" for n in parts)


def test_pqmeta_reports_what_it_cannot_decrypt(pqcore_spark, corpus, tmp_path):
    root = tmp_path / "mixed"
    root.mkdir()
    shutil.copy(corpus / "encrypt_columns_and_footer.parquet.encrypted", root / "enc.parquet")
    pc.write_table({"a": [1, 2, 3]}, root / "plain.parquet")
    rows = {os.path.basename(r["path"]): r for r in
            pqcore_spark.read.format("pqmeta").option("level", "file").load(str(root)).collect()}
    assert rows["plain.parquet"]["error"] is None and rows["plain.parquet"]["num_rows"] == 3
    assert rows["enc.parquet"]["error"]  # reported as data, not a failed job
    with_keys = pqcore_spark.read.format("pqmeta").option("level", "file")
    for k, v in EXPLICIT.items():
        with_keys = with_keys.option(k, v)
    rows = {os.path.basename(r["path"]): r for r in with_keys.load(str(root)).collect()}
    assert rows["enc.parquet"]["error"] is None and rows["enc.parquet"]["num_rows"] == 50
    # a PARE file (parquet-testing's README): AES_GCM_V1 with an encrypted footer
    assert (rows["enc.parquet"]["encryption_algorithm"], rows["enc.parquet"]["footer_mode"]) == \
        ("AES_GCM_V1", "encrypted")
    assert (rows["plain.parquet"]["encryption_algorithm"], rows["plain.parquet"]["footer_mode"]) == (None, None)
    pages = with_keys.option("level", "page").load(str(root / "enc.parquet")).collect()
    enc_pages = [p for p in pages if p["column_path"] == "double_field"]
    assert enc_pages and all(p["error"] is None and p["page_type"] for p in enc_pages)
    assert sum(p["num_values"] or 0 for p in enc_pages if p["page_type"] != "DICTIONARY_PAGE") == 50


def test_pqmeta_column_crypto_metadata(pqcore_spark, corpus):
    """Key ids from the issue: double_field is encrypted with kc1, float_field with kc2."""
    path = str(corpus / "encrypt_columns_plaintext_footer.parquet.encrypted")

    def load(**options):
        r = pqcore_spark.read.format("pqmeta").option("level", "column")
        for k, v in options.items():
            r = r.option(k, v)
        return {row["column_path"]: row for row in r.load(path).collect()}

    without = load()
    assert {c: (without[c]["encryption_key"], without[c]["key_metadata"]) for c in ("double_field", "float_field")} \
        == {"double_field": ("column", "kc1"), "float_field": ("column", "kc2")}
    assert without["double_field"]["error"] and without["int32_field"]["error"] is None
    assert without["int32_field"]["encrypted"] is False and without["int32_field"]["encryption_key"] is None
    with_keys = load(**EXPLICIT)
    assert with_keys["double_field"]["error"] is None and with_keys["double_field"]["num_values"] == 50
