"""Encrypted files no one here wrote (parquet-testing) decrypt to the values other readers see.

Oracles: polars (``ParquetDecryptionProperties`` with explicit keys; GCM
only) for every column but INT96, which polars saturates to the largest
timestamp; duckdb (footer key, uniform files) for INT96. The CTR files,
which neither oracle reads, are compared with their GCM twin written by
the same generator with the same data, that twin being checked against
polars in its own case here.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.errors import ParquetEncryptionError
from tests.encryption.corpus_keys import (
    COLUMNS_16, EXTERNAL, FILES, FOOTER_16, FOOTER_32, KEY_IDS_16, decryption, keys)

pl = pytest.importorskip("polars")

BLOOM = "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"
PLAIN_FOOTER = "encrypt_columns_plaintext_footer.parquet.encrypted"


def _polars(corpus, name, columns=None):
    k = keys(name)
    props = pl.ParquetDecryptionProperties(footer_key=k["footer_key"], column_keys=k["column_keys"],
                                           aad_prefix=k.get("aad_prefix"))
    return pl.read_parquet(corpus / name, columns=columns, decryption=props)


def _assert_same(ours: pc.Table, df, skip=("int96_field",)) -> None:
    assert ours.column_names == df.columns
    assert ours.num_rows == df.height
    for name in ours.column_names:
        if name not in skip:
            assert ours.column(name).to_pylist() == df[name].to_list(), name


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_reads_like_the_oracle(corpus, name):
    ours = pc.read_table(corpus / name, decryption=decryption(name))
    pf = pc.ParquetFile(corpus / name, decryption=decryption(name))
    if "_ctr" in name:
        # Neither polars nor duckdb read AES_GCM_CTR_V1: compare with the GCM twin.
        assert pf.metadata.decryptor.algorithm == "AES_GCM_CTR_V1"
        twin = name.replace("_ctr", "")
        expected = pc.read_table(corpus / twin, decryption=decryption(twin))
        assert ours.to_pylist() == expected.to_pylist()
        _assert_same(expected, _polars(corpus, twin))
    else:
        assert pf.metadata.decryptor.algorithm == "AES_GCM_V1"
        _assert_same(ours, _polars(corpus, name))


@pytest.mark.parametrize("name,key", [("uniform_encryption.parquet.encrypted", FOOTER_16),
                                      ("aes256/uniform_encryption.parquet.encrypted", FOOTER_32)])
def test_int96_matches_duckdb_and_every_file_holds_the_same(corpus, name, key):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute(f"PRAGMA add_parquet_key('kf', '{key.decode()}')")
    got = con.execute(f"SELECT epoch_us(int96_field) FROM read_parquet('{corpus / name}', "
                      "encryption_config={footer_key: 'kf'})").fetchall()
    ours = pc.read_table(corpus / name, columns=["int96_field"], decryption=decryption(name))
    # INT96 here lies before 1677: our reader keeps exact nanoseconds; duckdb gives microseconds.
    ns = [v.value for v in ours.column("int96_field").to_pylist()]
    assert [n // 1000 for n in ns] == [r[0] for r in got]
    for other in FILES:
        if other != BLOOM and other.startswith("aes256/") == name.startswith("aes256/"):
            t = pc.read_table(corpus / other, columns=["int96_field"], decryption=decryption(other))
            assert [v.value for v in t.column("int96_field").to_pylist()] == ns, other


def test_key_retriever_with_the_files_key_ids(corpus):
    name = "encrypt_columns_and_footer.parquet.encrypted"
    seen = []

    def retrieve(key_metadata: bytes):
        seen.append(key_metadata)
        return KEY_IDS_16.get(key_metadata)

    ours = pc.read_table(corpus / name, decryption=pc.FileDecryptionProperties(key_retriever=retrieve))
    _assert_same(ours, _polars(corpus, name))
    assert {b"kf", b"kc1", b"kc2"} <= set(seen)


def test_plaintext_footer_without_keys_reads_plaintext_columns(corpus):
    f = corpus / PLAIN_FOOTER
    plain = ["boolean_field", "int32_field", "int64_field", "ba_field", "flba_field"]
    ours = pc.read_table(f, columns=plain)                  # no decryption= at all
    _assert_same(ours, _polars(corpus, PLAIN_FOOTER, plain))
    assert pc.read_schema(f).names == pc.read_schema(f, decryption=decryption(PLAIN_FOOTER)).names
    md = pc.read_metadata(f)
    assert md.row_group(0).column(0).statistics is not None
    for column in ("double_field", "float_field"):
        with pytest.raises(ParquetEncryptionError, match=column):
            pc.read_table(f, columns=[column])
        idx = md.schema.index_of((column,))
        with pytest.raises(ParquetEncryptionError, match=column):
            md.row_group(0).column(idx)


def test_plaintext_footer_statistics_come_from_the_encrypted_metadata(corpus):
    # The plaintext copy of an encrypted column's metadata has its statistics stripped.
    md = pc.read_metadata(corpus / PLAIN_FOOTER, decryption=decryption(PLAIN_FOOTER))
    idx = md.schema.index_of(("double_field",))
    chunk = md.row_group(0).column(idx)
    assert chunk.raw.meta_data.statistics is None
    df = _polars(corpus, PLAIN_FOOTER, ["double_field"])
    assert (chunk.statistics.min, chunk.statistics.max) == (df["double_field"].min(), df["double_field"].max())


def test_only_the_footer_key_reads_the_other_columns(corpus):
    name = "encrypt_columns_and_footer.parquet.encrypted"
    props = pc.FileDecryptionProperties(footer_key=FOOTER_16)
    pf = pc.ParquetFile(corpus / name, decryption=props)
    ours = pf.read(columns=["boolean_field", "int32_field", "ba_field"])
    _assert_same(ours, _polars(corpus, name, ["boolean_field", "int32_field", "ba_field"]))
    with pytest.raises(ParquetEncryptionError, match="double_field"):
        pf.read(columns=["double_field"])


def test_bloom_filters_of_encrypted_columns(corpus):
    pf = pc.ParquetFile(corpus / BLOOM, decryption=decryption(BLOOM))
    df = _polars(corpus, BLOOM)
    rng = np.random.default_rng(6)
    for column in ("double_field", "float_field"):
        assert pf.metadata.row_group(0).column(pf.metadata.schema.index_of((column,))).is_encrypted
        bf = pf.bloom_filter(0, column)
        present = df[column].to_numpy()
        assert bf.check(present.tolist()).all()
        absent = rng.uniform(1e6, 1e7, 2000).astype(present.dtype)
        assert bf.check(absent.tolist()).mean() < 0.1
    report = pf.explain([("double_field", "==", 1000.75)])
    assert report.pruned_by_bloom_filter == [0]
    assert pf.read(filters=[("double_field", "==", 1000.75)]).num_rows == 0


@pytest.mark.parametrize("flt", [[("double_field", ">", 1900)], [("float_field", "<", 3)],
                                 [("name", "==", "name_7")]])
def test_page_index_selected_reads_of_encrypted_columns(corpus, flt):
    pf = pc.ParquetFile(corpus / BLOOM, decryption=decryption(BLOOM))
    assert pf.column_index(0, "double_field") is not None
    report = pf.explain(flt)
    assert report.pages_read < report.pages_indexed        # pages were picked through the offset index
    col, op, value = flt[0]
    df = _polars(corpus, BLOOM)
    expected = df.filter({">": pl.col(col) > value, "<": pl.col(col) < value,
                          "==": pl.col(col) == value}[op])
    _assert_same(pf.read(filters=flt), expected)


def test_iter_batches_and_row_groups(corpus):
    pf = pc.ParquetFile(corpus / BLOOM, decryption=decryption(BLOOM))
    rows = [r for b in pf.iter_batches(batch_size=333) for r in b.to_pylist()]
    assert rows == _polars(corpus, BLOOM).to_dicts()
    assert pf.read_row_group(0).to_pylist() == rows


def test_external_key_material_through_the_key_tools(corpus):
    """parquet-java's file with its key material in ``_KEY_MATERIAL_FOR_<file>.json``.

    Its master keys (parquet-java's in-memory test KMS) are the corpus keys
    under the ids kf/kc1/kc2. The key tools unwrap the data keys; polars,
    given those unwrapped keys, is the oracle for the values.
    """
    from parquet_core.encryption import keytools

    masters = {"kf": FOOTER_16.decode(), "kc1": COLUMNS_16["double_field"].decode(),
               "kc2": COLUMNS_16["float_field"].decode()}
    path = corpus / EXTERNAL
    factory = keytools.CryptoFactory(lambda config: keytools.InMemoryKms(masters))
    props = factory.file_decryption_properties(keytools.KmsConnectionConfig(), parquet_file_path=path)
    pf = pc.ParquetFile(path, decryption=props)
    ours = pf.read()
    md = pf.metadata
    footer_key = props.key_for_footer(md.decryptor.footer_key_metadata)
    column_keys = {}
    for i in range(md.num_columns):
        chunk = md.row_group(0).column(i)
        meta = chunk.raw.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY.key_metadata
        column_keys[chunk.path_in_schema] = props.key_for_column(chunk.path_in_schema, meta)
    df = pl.read_parquet(path, decryption=pl.ParquetDecryptionProperties(
        footer_key=footer_key, column_keys=column_keys))
    assert ours.num_rows == 100
    _assert_same(ours, df)
    with pytest.raises(ParquetEncryptionError):
        pc.read_table(path, decryption=factory.file_decryption_properties(keytools.KmsConnectionConfig()))


def test_cli_with_keys(corpus, capsys):
    from parquet_core.cli import main

    name = "encrypt_columns_and_footer_aad.parquet.encrypted"
    f = str(corpus / name)
    assert main(["head", f, "-n", "2", "--footer-key", FOOTER_16.decode(),
                 "--column-key", f"double_field:{COLUMNS_16['double_field'].decode()}",
                 "--column-key", f"float_field:hex:{COLUMNS_16['float_field'].hex()}",
                 "--aad-prefix", "tester"]) == 0
    out = capsys.readouterr().out
    assert "1.1111111" in out and "parquet000" in out
    assert main(["meta", f]) == 1
    assert "footer key" in capsys.readouterr().err


def test_cli_head_without_keys_shows_the_plaintext_columns(corpus, capsys):
    from parquet_core.cli import main

    assert main(["head", str(corpus / PLAIN_FOOTER), "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "parquet000" in out and "without a key not shown: float_field, double_field" in out


@pytest.mark.parametrize("name", FILES)
def test_algorithm_and_footer_mode_as_the_corpus_names_them(corpus, name):
    """parquet-testing's README: the ``_ctr`` files use AES_GCM_CTR_V1, the others AES_GCM_V1;
    ``encrypt_columns_plaintext_footer`` keeps a signed plaintext footer, the others a PARE one."""
    md = pc.read_metadata(corpus / name, decryption=decryption(name))
    assert md.encryption_algorithm == ("AES_GCM_CTR_V1" if "_ctr" in name else "AES_GCM_V1")
    assert md.footer_mode == ("plaintext" if "plaintext_footer" in name else "encrypted")


def test_a_plain_file_has_no_encryption(corpus):
    md = pc.read_metadata(corpus / "alltypes_plain.parquet")
    assert md.encryption_algorithm is None and md.footer_mode is None
