"""Encrypted metadata stores (PME): labels in the schema, keys only through parquet_core's key tools."""

from __future__ import annotations

import os

import pytest

import parquet_core as pc
from parquet_core.encryption.keytools import InMemoryKms
from parquet_core_integrations.xskipper import MetadataStore, Xskipper, XskipperIndexError
from parquet_core_integrations.xskipper.pme import PmeKeys, parse_column_keys

c = pc.col
KEYS = {"k1": b"0123456789012345", "k2": b"1234567890123450"}


def _keys(master=KEYS):
    return PmeKeys(pc.CryptoFactory(lambda cfg: InMemoryKms(master)), pc.KmsConnectionConfig())


@pytest.fixture
def dataset(tmp_path):
    root = tmp_path / "data" / "dt=2024-01-01"
    root.mkdir(parents=True)
    pc.write_table({"temp": [1.0, 2.0], "city": ["a", "b"]}, str(root / "a.parquet"))
    pc.write_table({"temp": [9.0], "city": ["z"]}, str(root / "b.parquet"))
    return str(tmp_path / "data")


@pytest.mark.parametrize("plaintext", [False, True])
def test_encrypted_round_trip_with_labels(dataset, tmp_path, plaintext):
    xs = Xskipper(None, dataset, str(tmp_path / "md"), keys=_keys())
    xs.index_builder().add_min_max_index("temp", key_metadata="k2").add_value_list_index("city") \
        .build(footer_key="k1", plaintext_footer=plaintext)
    (name,) = os.listdir(xs.md_path)
    with open(os.path.join(xs.md_path, name), "rb") as fh:
        assert fh.read(4) == (b"PAR1" if plaintext else b"PARE")
    store = xs.store()
    assert store.indexes[0].key_metadata == "k2" and store.indexes[1].key_metadata is None
    enc = store.encryption
    assert parse_column_keys(enc["encryption.column.keys"]) == {
        "k2": ["temp_minmax_4.min", "temp_minmax_4.max"], "k1": ["obj_name", "virtual_dt"]}
    assert enc["encryption.footer.key"] == "k1" and (enc.get("encryption.plaintext.footer") == "true") == plaintext
    assert sorted(os.path.basename(p) for p in xs.required_files(c("temp") > 5)) == ["b.parquet"]
    for v in KEYS.values():  # labels only: no key material in the schema JSON
        assert v.decode() not in store.schema_json
    # refresh keeps the stored labels and needs the keys again
    assert xs.refresh_index()["status"] == "SUCCESS"
    assert xs.store().encryption == enc


def test_wrong_or_missing_keys_fail_clearly(dataset, tmp_path):
    base = str(tmp_path / "md")
    xs = Xskipper(None, dataset, base, keys=_keys())
    xs.index_builder().add_min_max_index("temp", key_metadata="k2").build(footer_key="k1")
    wrong = {"k1": b"5555555555555555", "k2": b"6666666666666666"}
    with pytest.raises(pc.ParquetError):
        MetadataStore(xs.md_path, _keys(wrong))
    with pytest.raises(pc.ParquetError):
        MetadataStore(xs.md_path)
    with pytest.raises(XskipperIndexError, match="key tools"):
        Xskipper(None, dataset, str(tmp_path / "md2")).index_builder() \
            .add_min_max_index("temp", key_metadata="k2").build(footer_key="k1")
