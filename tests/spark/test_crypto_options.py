"""Encryption ``.option(...)`` strings -> encryption properties (no Spark session needed).

Outside truths: parquet-cpp's encrypted corpus files read with keys given
as option strings, and polars reading, with the raw keys, files written
from option strings.
"""

from __future__ import annotations

import base64

import pytest

import parquet_core as pc
from spark_adapter.core.crypto_options import (
    decryption_from_options,
    encryption_from_options,
    parse_key,
)
from tests.encryption.corpus_keys import AAD_PREFIX, COLUMNS_16, FOOTER_16

pl = pytest.importorskip("polars")

P = "parquet.encryption."


def test_no_options_no_properties():
    assert decryption_from_options({"path": "x"}) is None
    assert encryption_from_options({"compression": "zstd"}) is None


def test_key_forms():
    assert parse_key("0123456789012345", "k") == FOOTER_16
    assert parse_key("hex:" + FOOTER_16.hex(), "k") == FOOTER_16
    assert parse_key("base64:" + base64.b64encode(FOOTER_16).decode(), "k") == FOOTER_16
    with pytest.raises(ValueError, match="cannot decode"):
        parse_key("hex:zz", "k")


@pytest.mark.parametrize("name, extra", [
    ("encrypt_columns_and_footer.parquet.encrypted", {}),
    ("encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
     {P + "aad.prefix": AAD_PREFIX.decode()}),
])
def test_explicit_keys_read_corpus_files(corpus, name, extra):
    options = {
        "Parquet.Encryption.Footer.Key": FOOTER_16.decode(),  # option names are case-insensitive
        P + "column.keys": f"{COLUMNS_16['double_field'].decode()}:double_field;"
                           f"hex:{COLUMNS_16['float_field'].hex()}:float_field",
        **extra,
    }
    props = decryption_from_options(options)
    ours = pc.read_table(corpus / name, decryption=props)
    expected = pl.read_parquet(corpus / name, decryption=pl.ParquetDecryptionProperties(
        footer_key=FOOTER_16, column_keys=COLUMNS_16, aad_prefix=extra and AAD_PREFIX or None))
    for column in ("double_field", "float_field", "int32_field", "ba_field"):
        assert ours.column(column).to_pylist() == expected[column].to_list()


def test_java_key_list_and_in_memory_kms_read_external_material(corpus):
    name = "external_key_material_java.parquet.encrypted"
    key_list = ", ".join(f"{kid}:{base64.b64encode(key).decode()}" for kid, key in
                         [("kf", FOOTER_16), ("kc1", COLUMNS_16["double_field"]),
                          ("kc2", COLUMNS_16["float_field"])])
    options = {P + "kms.client.class": "InMemoryKms", P + "key.list": key_list}
    table = pc.read_table(corpus / name, decryption=decryption_from_options(options, str(corpus / name)))
    # Arrow's test suite documents this file's contents: integers 0..99, strings a0, b1, ...
    assert table.column("integers").to_pylist() == list(range(100))
    assert table.column("strings").to_pylist()[:3] == ["a0", "b1", "c2"]


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("plaintext_footer", ["false", "true"])
def test_explicit_keys_write_read_back(tmp_path, algorithm, plaintext_footer):
    column_key = b"c" * 16
    options = {P + "footer.key": FOOTER_16.decode(), P + "column.keys": "cccccccccccccccc:secret",
               P + "algorithm": algorithm, P + "plaintext.footer": plaintext_footer}
    path = tmp_path / "f.parquet"
    data = {"secret": list(range(50)), "public": [f"v{i}" for i in range(50)]}
    pc.write_table(data, path, encryption=encryption_from_options(options, str(path)))
    back = pc.read_table(path, decryption=decryption_from_options(options, str(path)))
    assert back.to_pydict() == data
    if algorithm == "AES_GCM_V1":  # polars reads GCM files only
        df = pl.read_parquet(path, decryption=pl.ParquetDecryptionProperties(
            footer_key=FOOTER_16, column_keys={"secret": column_key}))
        assert df["secret"].to_list() == data["secret"] and df["public"].to_list() == data["public"]
    with pytest.raises(pc.ParquetEncryptionError):
        pc.read_table(path, columns=["secret"], decryption=pc.FileDecryptionProperties(
            footer_key=FOOTER_16, column_keys={"secret": b"x" * 16}))


def test_kms_write_options_round_trip(tmp_path):
    keys = {"kf": b"F" * 16, "k1": b"1" * 16}
    key_list = ",".join(f"{k}:{base64.b64encode(v).decode()}" for k, v in keys.items())
    options = {P + "kms.client.class": "InMemoryKms", P + "key.list": key_list,
               P + "footer.key": "kf", P + "column.keys": "k1:a",
               P + "key.material.store.internally": "false"}
    path = tmp_path / "g.parquet"
    pc.write_table({"a": [1, 2, 3], "b": [4, 5, 6]}, path, encryption=encryption_from_options(options, str(path)))
    assert (tmp_path / "_KEY_MATERIAL_FOR_g.parquet.json").exists()
    back = pc.read_table(path, decryption=decryption_from_options(options, str(path)))
    assert back.to_pydict() == {"a": [1, 2, 3], "b": [4, 5, 6]}


@pytest.mark.parametrize("options, message", [
    ({P + "column.keys": "0123456789012345:a"}, "footer.key"),
    ({P + "footer.key": "0123456789012345", P + "column.keys": "nocolon"}, "expected <key>"),
    ({P + "footer.key": "0123456789012345",
      P + "column.keys": "0123456789012345:a;1123456789012345:a"}, "twice"),
    ({P + "footer.key": "0123456789012345", P + "plaintext.footer": "maybe"}, "true or false"),
    ({P + "kms.client.class": "no_such_module:Kms", P + "footer.key": "kf"}, "cannot load"),
    ({P + "kms.client.class": "InMemoryKms", P + "footer.key": "kf"}, "key.list"),
    ({P + "kms.client.class": "InMemoryKms", P + "key.list": "kf:!!", P + "footer.key": "kf"}, "base64"),
])
def test_bad_options_name_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        encryption_from_options(options, "/tmp/x.parquet")
