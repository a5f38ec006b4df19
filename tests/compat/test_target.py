"""``pqc check --target``: features a file uses, read from its footer, against the shipped table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.compat.features import FEATURES, write_all
from parquet_core.validation.compat import features_used, footer_crypto, load_table, target_findings

ROOT = Path(__file__).resolve().parents[2]

#: features the footer shows (the others are about pages, values or key/values only)
DETECTED = [
    "physical.INT96", "logical.INT8", "logical.UINT64", "logical.ENUM", "logical.JSON", "logical.BSON",
    "logical.UUID", "logical.FLOAT16", "logical.DATE", "logical.TIME_NANOS_UTC", "logical.TIMESTAMP_NANOS_LOCAL",
    "logical.TIMESTAMP_MILLIS_UTC", "logical.DECIMAL_INT32", "logical.DECIMAL_INT64", "logical.DECIMAL_FLBA",
    "logical.DECIMAL_FLBA_38", "logical.DECIMAL_FLBA_60", "logical.DECIMAL_BYTE_ARRAY", "logical.INTERVAL",
    "logical.UNKNOWN",
    "logical.GEOMETRY", "logical.GEOGRAPHY", "logical.VARIANT", "logical.VARIANT_shredded", "logical.VARIANT_shredded_array", "logical.FILE",
    "encoding.DELTA_BINARY_PACKED.int32", "encoding.DELTA_BYTE_ARRAY.flba", "encoding.BYTE_STREAM_SPLIT.int64",
    "encoding.BYTE_STREAM_SPLIT.float16", "encoding.ALP.double", "encoding.RLE.boolean",
    "encoding.DELTA_LENGTH_BYTE_ARRAY.byte_array", "encoding.RLE_DICTIONARY.flba",
    "codec.LZ4_RAW", "codec.LZ4_HADOOP", "codec.BROTLI", "codec.ZSTD", "page.v2", "page.v2_compressed",
    "nested.list_3level", "nested.list_2level_legacy", "nested.list_legacy_bag", "nested.map", "nested.struct",
    "stats.minmax_truncated", "stats.float_total_order", "stats.size_statistics", "stats.geospatial",
    "bloom.filter", "index.page_index", "sorting_columns", "external.file_path",
    "encryption.gcm_footer", "encryption.ctr", "encryption.plaintext_footer", "encryption.column_keys",
    "encryption.aad_prefix_stored", "encryption.aad_prefix_supplied",
]

_KF = bytes(range(16))


def _footer(path: Path, fid: str):
    keys = FEATURES[fid]
    dec = None
    if fid.startswith("encryption."):
        dec = pc.FileDecryptionProperties(
            footer_key=_KF, column_keys={"s": bytes(range(16, 32))} if fid.endswith("column_keys") else None,
            aad_prefix=b"table-x" if fid.endswith("supplied") else None)
    del keys
    with open(path, "rb") as fh:
        data = fh.read()

    class Src:
        size = len(data)

        def read_at(self, off: int, n: int) -> memoryview:
            return memoryview(data)[off:off + n]
    raw = pc.ParquetFile(str(path), decryption=dec).metadata.raw
    return raw, footer_crypto(Src(), len(data))


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("features")
    out = write_all([FEATURES[f] for f in DETECTED], folder)
    bad = {k: v for k, v in out.items() if isinstance(v, Exception)}
    assert not bad
    return folder, out


def test_every_detected_id_is_in_the_catalogue(written: tuple[Path, dict]) -> None:
    assert set(DETECTED) <= set(FEATURES)
    folder, out = written
    for fid in DETECTED:
        raw, crypto = _footer(folder / out[fid].name, fid)
        used = features_used(raw, crypto)
        assert fid in used, (fid, sorted(used))
        assert set(used) <= set(FEATURES), (fid, set(used) - set(FEATURES))


def test_encrypted_footer_without_keys_still_names_its_algorithm(written: tuple[Path, dict]) -> None:
    folder, out = written
    path = folder / out["encryption.ctr"].name
    report = pc.check(str(path), level="footer", targets=["polars"])
    # polars refuses AES_GCM_CTR_V1 (measured); the footer could not be decrypted without keys
    assert any(f.rule == "compat.polars" and "encryption.ctr" in f.message for f in report.findings)


def test_target_warnings_from_the_shipped_table(tmp_path: Path) -> None:
    """Spark's reader refuses TIME and FLOAT16 (measured: PARQUET_TYPE_ILLEGAL); a plain
    int64 column draws no warning."""
    path = tmp_path / "f.parquet"
    pc.write_table({"h": [1.5, None], "i": [1, 2]}, str(path),
                   schema=pc.schema([pc.field("h", pc.float16()), pc.field("i", pc.int64())]))
    table = load_table()
    assert "logical.FLOAT16" in table["readers"].get("spark", {}).get("features", {}), \
        "parquet_core/_data/compat_table.json lost its Spark measurement"
    report = pc.check(str(path), level="footer", targets="spark-4.0,pyarrow")
    rules = [(f.rule, f.severity) for f in report.findings]
    assert ("compat.spark", "warning") in rules
    assert not [f for f in report.findings if f.rule == "compat.pyarrow"]
    assert report.ok                                      # warnings only


def test_release_note_entries_apply_to_older_targets() -> None:
    table = {"readers": {"spark": {"version": "4.3.0", "features": {},
                                   "release_notes": [{"feature": "codec.LZ4_RAW", "since": "3.4",
                                                      "source": "https://example.org/notes"}]}}}
    used = {"codec.LZ4_RAW": "c"}
    assert [f for _, f, _ in target_findings(used, ["spark-3.3"], table)] == ["codec.LZ4_RAW"]
    assert target_findings(used, ["spark-3.5"], table) == []
    assert target_findings(used, ["spark"], table) == []


def test_unknown_target_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pc.write_table({"i": [1]}, str(path))
    with pytest.raises(ValueError, match="unknown reader"):
        pc.check(str(path), targets=["nosuchreader-1"])
    proc = subprocess.run([sys.executable, "-m", "parquet_core.cli", "check", "--target", "nosuch", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and "unknown reader" in proc.stderr


def test_cli_target_json(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pc.write_table({"h": [1.5]}, str(path), schema=pc.schema([pc.field("h", pc.float16())]))
    proc = subprocess.run([sys.executable, "-m", "parquet_core.cli", "check", "--json", "--level", "footer",
                           "--target", "fastparquet", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout.splitlines()[0])["findings"]
    if "logical.FLOAT16" in load_table()["readers"].get("fastparquet", {}).get("features", {}):
        assert any(f["rule"] == "compat.fastparquet" for f in findings)
