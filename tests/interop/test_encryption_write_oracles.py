"""Files we encrypt, read value for value by other implementations.

* polars (``pl.read_parquet(..., decryption=pl.ParquetDecryptionProperties(
  footer_key=, column_keys=, aad_prefix=))``) takes explicit keys; it reads
  AES_GCM_V1 only (it rejects AES_GCM_CTR_V1 as "not yet supported").
* pyarrow (``pq.read_table(..., decryption_properties=CryptoFactory(...)
  .file_decryption_properties(...))``) takes keys only through its key tools:
  it parses each ``key_metadata`` as key material JSON and asks a KmsClient
  to unwrap the data key. The test KMS below "wraps" by base64 (no secrecy,
  this only proves the modules), and ``_material`` writes the JSON fields
  pyarrow's key tools read. pyarrow also checks page CRCs here
  (``page_checksum_verification=True``), which proves the CRC covers the
  encrypted page as stored.

Every algorithm x footer mode x key layout is written with Bloom filters,
page indexes, page checksums, several pages per chunk, dictionary and plain
pages, nulls and a nested column.
"""

from __future__ import annotations

import base64
import itertools
import json

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pe = pytest.importorskip("pyarrow.parquet.encryption")

FOOTER_KEY = b"0123456789012345"
KEY1 = b"1234567890123450"
KEY2 = b"abcdefghijklmnopqrstuvwxyz012345"  # AES-256
KEY3 = b"12345678901234567890123456789012"  # AES-256
KEY192 = b"123456789012345678901234"        # polars reads 128- and 256-bit keys only

N = 3000
LAYOUTS = {
    "uniform": None,
    "per_column": {"i": KEY1, "f": KEY2, "s": KEY3, "l.list.element": KEY1},
    "some_plaintext": {"f": KEY1, "s": KEY3},
}
ALGORITHMS = ["AES_GCM_V1", "AES_GCM_CTR_V1"]


def _data() -> dict:
    rng = np.random.default_rng(7)
    return {
        "i": np.arange(N, dtype=np.int64),
        "f": rng.random(N),
        "s": [None if i % 11 == 0 else f"s{i % 37}" for i in range(N)],
        "l": [[i, i + 1] if i % 5 else None for i in range(N)],
    }


DATA = _data()


def _material(key: bytes, master_key_id: str, footer: bool) -> bytes:
    """Key material in the JSON form pyarrow's key tools read (single wrapping)."""
    m = {"keyMaterialType": "PKMT1", "internalStorage": True, "isFooterKey": footer,
         "masterKeyID": master_key_id, "wrappedDEK": base64.b64encode(key).decode(),
         "doubleWrapping": False}
    if footer:
        m.update(kmsInstanceID="DEFAULT", kmsInstanceURL="DEFAULT")
    return json.dumps(m).encode()


def _write(path, algorithm, plaintext_footer, layout, version, **extra):
    keys = LAYOUTS[layout]
    props = pc.FileEncryptionProperties(
        footer_key=FOOTER_KEY, column_keys=keys, algorithm=algorithm,
        plaintext_footer=plaintext_footer, aad_prefix=extra.pop("aad_prefix", None),
        footer_key_metadata=_material(FOOTER_KEY, "kf", True),
        column_key_metadata={c: _material(k, "kc", False) for c, k in (keys or {}).items()})
    pc.write_table(DATA, path, encryption=props, data_page_version=version,
                   bloom_filter_options={"i": True, "s": True}, write_page_index=True,
                   write_page_checksum=True, data_page_row_count_limit=700,
                   dictionary_pagesize_limit=200, **extra)
    return keys


def _expected():
    return pa.table({k: pa.array(v if not isinstance(v, np.ndarray) else v) for k, v in DATA.items()})


CASES = list(itertools.product(ALGORITHMS, [False, True], LAYOUTS, ["1.0", "2.0"]))


class _Base64Kms(pe.KmsClient):
    def __init__(self, config):
        super().__init__()

    def wrap_key(self, key_bytes, master_key_identifier):
        return base64.b64encode(key_bytes).decode()

    def unwrap_key(self, wrapped_key, master_key_identifier):
        return base64.b64decode(wrapped_key)


@pytest.mark.parametrize("algorithm,plaintext_footer,layout,version", CASES)
def test_pyarrow_reads_our_encrypted_file(tmp_path, algorithm, plaintext_footer, layout, version):
    path = tmp_path / "enc.parquet"
    _write(path, algorithm, plaintext_footer, layout, version)
    factory = pe.CryptoFactory(lambda config: _Base64Kms(config))
    props = factory.file_decryption_properties(pe.KmsConnectionConfig())
    got = pq.read_table(path, decryption_properties=props, page_checksum_verification=True)
    assert got.equals(_expected())
    with open(path, "rb") as f:
        head = f.read(4)
    assert head == (b"PAR1" if plaintext_footer else b"PARE")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_pyarrow_reads_aes192_keys(tmp_path, algorithm):
    path = tmp_path / "enc.parquet"
    props = pc.FileEncryptionProperties(
        footer_key=KEY192, column_keys={"s": KEY192, "i": KEY1}, algorithm=algorithm,
        footer_key_metadata=_material(KEY192, "kf", True),
        column_key_metadata={"s": _material(KEY192, "kc", False), "i": _material(KEY1, "kc", False)})
    pc.write_table(DATA, path, encryption=props, bloom_filter_options={"s": True})
    factory = pe.CryptoFactory(lambda config: _Base64Kms(config))
    got = pq.read_table(path, decryption_properties=factory.file_decryption_properties(
        pe.KmsConnectionConfig()))
    assert got.equals(_expected())


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_pyarrow_reads_plaintext_columns_without_keys(tmp_path, algorithm):
    path = tmp_path / "enc.parquet"
    _write(path, algorithm, True, "some_plaintext", "1.0")
    got = pq.read_table(path, columns=["i", "l"])
    assert got.column("i").to_pylist() == DATA["i"].tolist()
    assert got.column("l").to_pylist() == DATA["l"]
    # the encrypted columns cannot be read without their keys
    with pytest.raises(OSError, match="(?i)decrypt"):
        pq.read_table(path, columns=["f"])


pl = None


def _polars():
    global pl
    if pl is None:
        pl = pytest.importorskip("polars")
    return pl


@pytest.mark.parametrize("plaintext_footer,layout,version",
                         [c[1:] for c in CASES if c[0] == "AES_GCM_V1"])
def test_polars_reads_our_encrypted_file(tmp_path, plaintext_footer, layout, version):
    polars = _polars()
    path = tmp_path / "enc.parquet"
    keys = _write(path, "AES_GCM_V1", plaintext_footer, layout, version, aad_prefix=b"tester")
    df = polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
        footer_key=FOOTER_KEY, column_keys=keys))
    assert df["i"].to_list() == DATA["i"].tolist()
    assert df["f"].to_numpy().tolist() == DATA["f"].tolist()
    assert df["s"].to_list() == DATA["s"]
    assert df["l"].to_list() == DATA["l"]


def test_polars_needs_unstored_aad_prefix(tmp_path):
    polars = _polars()
    path = tmp_path / "enc.parquet"
    props = pc.FileEncryptionProperties(footer_key=FOOTER_KEY, column_keys={"s": KEY1},
                                        aad_prefix=b"tester", store_aad_prefix=False)
    pc.write_table(DATA, path, encryption=props)
    with pytest.raises(Exception, match="(?i)aad"):
        polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
            footer_key=FOOTER_KEY, column_keys={"s": KEY1}))
    df = polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
        footer_key=FOOTER_KEY, column_keys={"s": KEY1}, aad_prefix=b"tester"))
    assert df["s"].to_list() == DATA["s"]
    with pytest.raises(polars.exceptions.ComputeError, match="(?i)encryption"):
        polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
            footer_key=FOOTER_KEY, column_keys={"s": KEY1}, aad_prefix=b"other"))


def test_polars_rejects_wrong_key(tmp_path):
    polars = _polars()
    path = tmp_path / "enc.parquet"
    pc.write_table(DATA, path, encryption=pc.FileEncryptionProperties(footer_key=FOOTER_KEY))
    with pytest.raises(polars.exceptions.ComputeError, match="(?i)encryption"):
        polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(footer_key=KEY1))


def test_polars_checks_our_footer_signature(tmp_path):
    polars = _polars()
    path = tmp_path / "enc.parquet"
    pc.write_table(DATA, path, encryption=pc.FileEncryptionProperties(
        footer_key=FOOTER_KEY, column_keys={"s": KEY1}, plaintext_footer=True))
    keys = {"s": KEY1}
    df = polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
        footer_key=FOOTER_KEY, column_keys=keys))
    assert df["s"].to_list() == DATA["s"]
    with pytest.raises(polars.exceptions.ComputeError, match="(?i)signature"):
        polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
            footer_key=KEY1, column_keys=keys))


def test_duckdb_reads_single_page_uniform_files(tmp_path):
    # duckdb reads footer-key (uniform) AES_GCM_V1 files, but its page decryption does
    # not follow the spec past a chunk's first page (duckdb/duckdb#18524: files from
    # parquet-cpp fail the same way), so chunks here hold one data page each
    duckdb = pytest.importorskip("duckdb")
    # (and it refuses plaintext-footer files: "not encrypted, but encryption_config was set")
    path = tmp_path / "u.parquet"
    pc.write_table({"i": DATA["i"], "s": DATA["s"]}, path, write_page_index=True,
                   encryption=pc.FileEncryptionProperties(footer_key=FOOTER_KEY))
    con = duckdb.connect()
    con.execute(f"PRAGMA add_parquet_key('kf', '{FOOTER_KEY.decode()}')")
    rows = con.execute(f"SELECT i, s FROM read_parquet('{path}', "
                       "encryption_config={footer_key: 'kf'}) ORDER BY i").fetchall()
    assert rows == list(zip(DATA["i"].tolist(), DATA["s"]))


def test_parquet_writer_row_groups_and_file_objects(tmp_path):
    import io

    polars = _polars()
    keys = {"s": KEY1}
    schema = pc.schema([pc.field("i", pc.int64()), pc.field("s", pc.string())])
    buf = io.BytesIO()
    props = pc.FileEncryptionProperties(footer_key=FOOTER_KEY, column_keys=keys, plaintext_footer=True)
    with pc.ParquetWriter(buf, schema, encryption=props) as w:
        for start in range(0, N, 1000):  # one row group per call
            w.write_table({"i": DATA["i"][start:start + 1000], "s": DATA["s"][start:start + 1000]})
    path = tmp_path / "w.parquet"
    path.write_bytes(buf.getvalue())
    df = polars.read_parquet(path, decryption=polars.ParquetDecryptionProperties(
        footer_key=FOOTER_KEY, column_keys=keys))
    assert df["i"].to_list() == DATA["i"].tolist() and df["s"].to_list() == DATA["s"]
    assert pq.ParquetFile(path).metadata.num_row_groups == 3  # plaintext footer: no key needed
