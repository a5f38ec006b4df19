"""Byte-level facts of the format, from Kartothek's own tests and the files it wrote."""

from __future__ import annotations

import datetime as dt

import msgpack
import pytest
import zstandard

from parquet_core_integrations.kartothek import naming
from parquet_core_integrations.kartothek.errors import KartothekError
from parquet_core_integrations.kartothek.metadata import load_metadata
from parquet_core_integrations.kartothek.store import LocalStore


def test_quoting_matches_kartothek():
    # test_metapartition.py::test_partition_urlencode and test_dataset_dyn_part.py
    assert naming.partition_label([("ÖŒå", 1)], "label_1") == "%C3%96%C5%92%C3%A5=1/label_1"
    assert naming.quote("München") == "M%C3%BCnchen"
    assert naming.quote("å\\ øß") == "%C3%A5%5C%20%C3%B8%C3%9F"
    assert naming.quote("x y=z&%") == "x%20y%3Dz%26%25"          # the shared partitioned_indexed labels
    assert naming.quote("a+b:c~d_e.f-g") == "a%2Bb%3Ac~d_e.f-g"
    assert naming.quote("a/b") == "a%2Fb"                         # Kartothek keeps '/' (bug B4)
    assert naming.unquote("a+b%2Fc") == "a+b/c"
    assert naming.parse_label("P=1/L=x%20y%3Dz%26%25/first") == [("P", "1"), ("L", "x y=z&%")]
    assert naming.parse_label("junk/P=1/a=b=c/lbl") == [("P", "1")]


def test_value_text_matches_kartothek():
    # the spellings in the shared typed_partitions labels
    assert naming.value_text(True) == "True" and naming.value_text(False) == "False"
    assert naming.value_text(1.5) == "1.5" and naming.value_text(-0.25) == "-0.25"
    assert naming.value_text(dt.date(2018, 1, 1)) == "2018-01-01"
    assert naming.value_text(dt.datetime(2018, 1, 1, 12, 30)) == "2018-01-01 12:30:00"


def test_index_key_matches_kartothek():
    stamp = naming.utc_isoformat(dt.datetime(2000, 1, 1, 1, 1, 1, 1, tzinfo=dt.timezone.utc))
    # TIME_TO_FREEZE_ISO_QUOTED in Kartothek's tests
    assert naming.index_key("uuid", "col", stamp) == \
        "uuid/indices/col/2000-01-01T01%3A01%3A01.000001.by-dataset-index.parquet"
    assert naming.utc_isoformat(dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)) == "2000-01-01T00:00:00"


@pytest.mark.parametrize("uuid", ["uuid+namespace-attribute12_underscored", "abc"])
def test_valid_uuids(uuid):
    assert naming.check_uuid(uuid) == uuid


@pytest.mark.parametrize("uuid", ["uuid.", "mañana", "", "a/b"])
def test_invalid_uuids(uuid):
    with pytest.raises(KartothekError):
        naming.check_uuid(uuid)


def test_json_metadata_dumps_to_kartothek_bytes(ktk_store):
    # every JSON metadata file Kartothek wrote round-trips byte for byte (key order, separators)
    checked = 0
    for path in sorted(ktk_store.glob("*.by-dataset-metadata.json")):
        uuid = path.name.split(".")[0]
        if uuid == "built_index":
            continue      # Kartothek's build_dataset_indices dropped the 'metadata' key; we always write it
        md = load_metadata(LocalStore(ktk_store), uuid)
        assert md.dump("json") == path.read_bytes(), uuid
        checked += 1
    assert checked >= 8


def test_msgpack_metadata_matches_kartothek(ktk_store):
    path = ktk_store / "simple_msgpack.by-dataset-metadata.msgpack.zstd"
    md = load_metadata(LocalStore(ktk_store), "simple_msgpack")
    raw = path.read_bytes()
    assert raw[:4] == b"\x28\xb5\x2f\xfd"
    ours = md.dump("msgpack")
    assert zstandard.ZstdDecompressor().decompress(ours) == zstandard.ZstdDecompressor().decompress(raw)
    assert zstandard.get_frame_parameters(ours).content_size == 250
    assert msgpack.unpackb(zstandard.ZstdDecompressor().decompress(ours))["dataset_uuid"] == "simple_msgpack"


def test_bad_metadata_is_refused(tmp_path):
    store = LocalStore(tmp_path)
    (tmp_path / "x.by-dataset-metadata.json").write_text('{"dataset_metadata_version": 3, "dataset_uuid": "x"}')
    with pytest.raises(KartothekError, match="version 3"):
        load_metadata(store, "x")
    (tmp_path / "y.by-dataset-metadata.json").write_text('{"dataset_metadata_version": 4, "dataset_uuid": "z"}')
    with pytest.raises(KartothekError, match="names dataset"):
        load_metadata(store, "y")
    (tmp_path / "w.by-dataset-metadata.json").write_text('{"dataset_metadata_version": 4, "dataset_uuid": "w", '
                                                          '"partitions": {"a": "legacy"}}')
    with pytest.raises(KartothekError, match="files"):
        load_metadata(store, "w")
    (tmp_path / "v.by-dataset-metadata.msgpack.zstd").write_bytes(b"\x28\xb5\x2f\xfdgarbage")
    with pytest.raises(KartothekError, match="msgpack"):
        load_metadata(store, "v")
    (tmp_path / "u.by-dataset-metadata.json").write_bytes(b"{not json")
    with pytest.raises(KartothekError):
        load_metadata(store, "u")
