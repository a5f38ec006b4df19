"""``pqc`` commands of issue 19, each checked against pyarrow's view of a pyarrow-written file
(or against the spec where pyarrow exposes nothing)."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.compute as pcompute
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from parquet_core.cli import main

COMMANDS = ["schema", "meta", "footer", "head", "cat", "inspect", "pages", "dictionary", "column-index",
            "offset-index", "bloom-filter", "size-stats", "column-size", "check", "rewrite", "merge"]


def _table(n: int = 300, start: int = 0) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "i": pa.array([None if k % 7 == 0 else k * 3 for k in ids], pa.int64()),
        "s": pa.array([None if k % 11 == 0 else f"v{k % 13:02d}" for k in ids]),
        "d": pa.array([k / 4 for k in ids], pa.float64()),
    })


@pytest.fixture()
def written(tmp_path):
    path = str(tmp_path / "in.parquet")
    pq.write_table(_table(), path, row_group_size=120, compression="snappy", write_page_index=True,
                   data_page_size=256, write_batch_size=32, use_dictionary=["s"],
                   bloom_filter_options={"s": True})
    return path


def _json_lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_help(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main([cmd, "--help"])
    assert exc.value.code == 0
    assert "usage: pqc " + cmd in capsys.readouterr().out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and pc.__version__ in capsys.readouterr().out


def test_footer_json_has_enum_names(written, capsys):
    assert main(["footer", "--json", written]) == 0
    (d,) = _json_lines(capsys)
    ref = pq.ParquetFile(written).metadata
    assert d["num_rows"] == ref.num_rows and len(d["row_groups"]) == ref.num_row_groups
    for i, rg in enumerate(d["row_groups"]):
        for j, col in enumerate(rg["columns"]):
            want = ref.row_group(i).column(j)
            assert col["meta_data"]["codec"] == want.compression == "SNAPPY"
            assert col["meta_data"]["type"] == want.physical_type
            assert sorted(col["meta_data"]["encodings"]) == sorted(want.encodings)
            assert col["meta_data"]["data_page_offset"] == want.data_page_offset
    assert [e["name"] for e in d["schema"][1:]] == ref.schema.names


def test_schema_and_meta_json(written, capsys):
    assert main(["schema", "--json", written]) == 0
    (d,) = _json_lines(capsys)
    assert [f["name"] for f in d["fields"]] == pq.read_schema(written).names
    assert [e.get("type") for e in d["schema"][1:]] == ["INT64", "BYTE_ARRAY", "DOUBLE"]
    assert main(["meta", "--json", written]) == 0
    (m,) = _json_lines(capsys)
    assert m["num_rows"] == 300


def test_cat_and_head_json_equal_pyarrow(written, capsys):
    assert main(["cat", "--json", written, "--columns", "i,s"]) == 0
    assert _json_lines(capsys) == pq.read_table(written, columns=["i", "s"]).to_pylist()
    assert main(["head", "--json", "-n", "5", written, "-c", "d"]) == 0
    assert _json_lines(capsys) == pq.read_table(written, columns=["d"]).slice(0, 5).to_pylist()


def test_pages_json(written, capsys):
    assert main(["pages", "--json", written, "--columns", "s"]) == 0
    chunks = _json_lines(capsys)
    ref = pq.ParquetFile(written).metadata
    assert [c["row_group"] for c in chunks] == list(range(ref.num_row_groups))
    for c in chunks:
        want = ref.row_group(c["row_group"]).column(1)
        pages = c["pages"]
        assert pages[0]["page_type"] == "DICTIONARY_PAGE" and pages[0]["offset"] == want.dictionary_page_offset
        data = pages[1:]
        assert data[0]["offset"] == want.data_page_offset
        assert {p["page_type"] for p in data} == {"DATA_PAGE"}
        assert {p["data_page_header"]["encoding"] for p in data} == {"RLE_DICTIONARY"}
        assert sum(p["data_page_header"]["num_values"] for p in data) == want.num_values
        assert sum(p["header_size"] + p["compressed_page_size"] for p in pages) == want.total_compressed_size


def test_dictionary_json(written, capsys):
    assert main(["dictionary", "--json", written, "-c", "s", "-c", "i", "--row-group", "1"]) == 0
    got = {c["column"]: c["dictionary"] for c in _json_lines(capsys)}
    group = pq.ParquetFile(written).read_row_group(1)
    # pyarrow writes dictionary entries in order of first appearance
    assert got["s"] == pcompute.unique(group["s"].drop_null()).to_pylist()
    assert got["i"] is None     # written without a dictionary


def test_column_and_offset_index_json(written, capsys):
    ref = pq.ParquetFile(written).metadata
    table = pq.read_table(written)
    assert main(["column-index", "--json", written, "-c", "i"]) == 0
    cis = _json_lines(capsys)
    assert main(["offset-index", "--json", written, "-c", "i"]) == 0
    ois = _json_lines(capsys)
    start = 0
    for ci, oi in zip(cis, ois):
        rg = ci["row_group"]
        st = ref.row_group(rg).column(0).statistics
        idx = ci["column_index"]
        assert min(v for v in idx["min_values"] if v is not None) == st.min
        assert max(v for v in idx["max_values"] if v is not None) == st.max
        assert sum(idx["null_counts"]) == st.null_count
        locs = oi["offset_index"]["page_locations"]
        assert len(locs) == len(idx["min_values"])
        assert rg == 2 or len(locs) > 1
        assert locs[0]["offset"] == ref.row_group(rg).column(0).data_page_offset
        assert sum(p["compressed_page_size"] for p in locs) == ref.row_group(rg).column(0).total_compressed_size
        # each page's bounds hold its rows (spec: min/max of the page's non-null values)
        rows = ref.row_group(rg).num_rows
        ends = [p["first_row_index"] for p in locs[1:]] + [rows]
        for p, end, lo, hi in zip(locs, ends, idx["min_values"], idx["max_values"]):
            vals = table["i"].slice(start + p["first_row_index"], end - p["first_row_index"]).drop_null()
            if len(vals):
                assert (lo, hi) == (pcompute.min(vals).as_py(), pcompute.max(vals).as_py())
        start += rows


def test_bloom_filter_probe(written, capsys):
    assert main(["bloom-filter", "--json", written, "-c", "s", "--probe", "v05", "--probe", "nope-xyz"]) == 0
    chunks = _json_lines(capsys)
    ref = pq.ParquetFile(written).metadata
    for c in chunks:
        want = ref.row_group(c["row_group"]).column(1)
        assert c["bloom_filter"]["offset"] == want.bloom_filter_offset
        assert c["probe"]["v05"] is True           # every written value must be found (spec)
    assert not all(c["probe"]["nope-xyz"] for c in chunks)
    assert main(["bloom-filter", "--json", written, "-c", "i"]) == 0
    assert all(c["bloom_filter"] is None for c in _json_lines(capsys))


def test_size_stats_json(written, capsys):
    assert main(["size-stats", "--json", written, "-c", "s"]) == 0
    table = pq.read_table(written)
    start = 0
    for c, rows in zip(_json_lines(capsys), [120, 120, 60]):
        col = table["s"].slice(start, rows)
        ss = c["size_statistics"]
        nulls = col.null_count
        # spec: the histogram counts values per definition level; flat optional: [nulls, non-nulls]
        assert ss["definition_level_histogram"] == [nulls, rows - nulls]
        assert ss["unencoded_byte_array_data_bytes"] == sum(len(v) for v in col.drop_null().to_pylist())
        start += rows


def test_column_size(written, capsys):
    assert main(["column-size", "--json", written]) == 0
    (d,) = _json_lines(capsys)
    ref = pq.ParquetFile(written).metadata
    for j, c in enumerate(d["columns"]):
        assert c["compressed"] == sum(ref.row_group(i).column(j).total_compressed_size
                                      for i in range(ref.num_row_groups))
        assert c["uncompressed"] == sum(ref.row_group(i).column(j).total_uncompressed_size
                                        for i in range(ref.num_row_groups))


def test_rewrite_changes_layout_and_keeps_rows(written, tmp_path):
    out = str(tmp_path / "out.parquet")
    assert main(["rewrite", written, out, "--compression", "gzip", "--row-group-size", "100",
                 "--encoding", "i=delta_binary_packed", "--bloom-filter", "i", "--no-page-index"]) == 0
    assert pq.read_table(out).equals(pq.read_table(written))
    md = pq.ParquetFile(out).metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [100, 100, 100]
    assert {md.row_group(0).column(j).compression for j in range(3)} == {"GZIP"}
    assert "DELTA_BINARY_PACKED" in md.row_group(0).column(0).encodings
    assert md.row_group(0).column(0).bloom_filter_offset is not None
    assert not md.row_group(0).column(0).has_column_index


def test_rewrite_in_place_is_atomic(written, tmp_path):
    before = pq.read_table(written)
    assert main(["rewrite", written, written, "--compression", "zstd"]) == 0
    assert pq.read_table(written).equals(before)
    assert pq.ParquetFile(written).metadata.row_group(0).column(0).compression == "ZSTD"
    assert sorted(os.listdir(tmp_path)) == ["in.parquet"]     # no temporary file left


def test_rewrite_encrypts_and_cli_names_the_key_options(written, tmp_path, capsys):
    out = str(tmp_path / "enc.parquet")
    key = "0123456789012345"
    assert main(["rewrite", written, out, "--encrypt-footer-key", key]) == 0
    assert main(["head", out]) == 1
    err = capsys.readouterr().err
    assert "--footer-key" in err and "FileDecryptionProperties" not in err
    assert main(["cat", "--json", out, "--footer-key", key]) == 0
    assert _json_lines(capsys) == pq.read_table(written).to_pylist()
    with pytest.raises(Exception):
        pq.read_table(out)          # really encrypted


def test_merge_equals_concat_tables(tmp_path):
    paths = []
    for k in range(3):
        p = str(tmp_path / f"part{k}.parquet")
        pq.write_table(_table(50 + k, start=1000 * k), p, row_group_size=40)
        paths.append(p)
    out = str(tmp_path / "merged.parquet")
    assert main(["merge", *paths, out, "--compression", "zstd"]) == 0
    want = pa.concat_tables([pq.read_table(p) for p in paths])
    assert pq.read_table(out).equals(want)


def test_merge_refuses_other_schemas(tmp_path, capsys):
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pq.write_table(pa.table({"x": [1]}), a)
    pq.write_table(pa.table({"y": ["z"]}), b)
    assert main(["merge", a, b, str(tmp_path / "m.parquet")]) == 1
    assert "another schema" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "m.parquet")


def test_unknown_column_is_an_error(written, capsys):
    assert main(["pages", written, "-c", "nope"]) == 1
    assert "no column 'nope'" in capsys.readouterr().err


def kms_factory(config):
    """A test KMS client built from ``--kms-conf MASTER_ID=KEY`` entries."""
    from parquet_core.encryption.keytools.kms import InMemoryKms

    return InMemoryKms(config.custom_kms_conf)


@pytest.mark.parametrize("internal", [True, False])
def test_kms_class_reads_kms_encrypted_files(tmp_path, capsys, internal):
    from parquet_core.encryption.keytools.config import EncryptionConfiguration
    from parquet_core.encryption.keytools.factory import CryptoFactory
    from parquet_core.encryption.keytools.kms import KmsConnectionConfig

    conf = {"kf": "0123456789012345", "kc": "1234567890123450"}
    path = str(tmp_path / "kms.parquet")
    factory = CryptoFactory(kms_factory)
    props = factory.file_encryption_properties(
        KmsConnectionConfig(custom_kms_conf=conf),
        EncryptionConfiguration(footer_key="kf", column_keys={"kc": ["i"]}, internal_key_material=internal),
        path)
    table = _table(40)
    pc.write_table(table, path, encryption=props)
    assert any(n.startswith("_KEY_MATERIAL_FOR_") for n in os.listdir(tmp_path)) is not internal
    assert main(["cat", "--json", path]) == 1
    assert "--kms-class" in capsys.readouterr().err
    args = ["cat", "--json", path, "--kms-class", f"{__name__}:kms_factory"]
    for k, v in conf.items():
        args += ["--kms-conf", f"{k}={v}"]
    assert main(args) == 0
    assert _json_lines(capsys) == table.to_pylist()


def test_rewrite_streams_row_groups(written, tmp_path, monkeypatch):
    # the whole file is never read at once: only read_row_group, once per input row group
    from parquet_core.file.reader import ParquetFile   # the file layer's class, pc.ParquetFile's base

    calls = []
    real = ParquetFile.read_row_group

    def spy(self, i, *a, **k):
        calls.append(i)
        return real(self, i, *a, **k)

    monkeypatch.setattr(ParquetFile, "read", lambda *a, **k: pytest.fail("whole-file read"))
    monkeypatch.setattr(ParquetFile, "read_row_group", spy)
    out = str(tmp_path / "s.parquet")
    assert main(["rewrite", written, out, "--row-group-size", "250"]) == 0
    assert calls == [0, 1, 2]
    md = pq.ParquetFile(out).metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [250, 50]
    assert pq.read_table(out).equals(pq.read_table(written))


# -- rewrite and merge keep what the footer says beyond the data ------------------------------

def _sorted_file(path: str, start: int, kv: dict | None = None) -> None:
    t = pa.table({"k": pa.array(range(start, start + 50), pa.int64()), "v": [f"s{i}" for i in range(50)]})
    t = t.replace_schema_metadata({"owner": "team-a", **(kv or {})})
    pq.write_table(t, path, row_group_size=20, sorting_columns=[pq.SortingColumn(0)])


def test_rewrite_keeps_key_value_metadata_and_sorting_columns(tmp_path) -> None:
    src, out = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    _sorted_file(src, 0)
    assert main(["rewrite", src, out, "--compression", "gzip"]) == 0
    meta = pq.ParquetFile(out).metadata
    assert meta.metadata[b"owner"] == b"team-a"
    for i in range(meta.num_row_groups):
        assert meta.row_group(i).sorting_columns == (pq.SortingColumn(0),)
    assert pq.read_table(out).equals(pq.read_table(src))


def test_rewrite_that_regroups_says_it_drops_sorting_columns(tmp_path, capsys) -> None:
    src, out = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    _sorted_file(src, 0)
    assert main(["rewrite", src, out, "--row-group-size", "35"]) == 0
    assert "sorting_columns are not carried" in capsys.readouterr().err
    meta = pq.ParquetFile(out).metadata
    assert meta.row_group(0).sorting_columns == ()
    assert meta.metadata[b"owner"] == b"team-a"


def test_rewrite_keeps_column_key_value_metadata(tmp_path) -> None:
    src, out = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pc.write_table({"a": [1, 2, 3], "b": ["x", "y", "z"]}, src, column_key_value_metadata={"b": {"unit": "m"}})
    assert main(["rewrite", src, out]) == 0
    assert pc.read_metadata(out).row_group(0).column(1).raw.meta_data.key_value_metadata[0].value == "m"


def test_merge_refuses_different_schemas_and_unions_them_on_request(tmp_path, capsys) -> None:
    a, b, out = (str(tmp_path / n) for n in ("a.parquet", "b.parquet", "out.parquet"))
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int32()), "x": ["p", "q"]}), a)
    pq.write_table(pa.table({"id": pa.array([3], pa.int64()), "y": [1.5]}), b)
    assert main(["merge", a, b, out]) == 1
    assert "--union-schema" in capsys.readouterr().err
    assert main(["merge", a, b, out, "--union-schema"]) == 0
    got = pq.read_table(out)
    assert got.schema.field("id").type == pa.int64()
    assert got.to_pylist() == [{"id": 1, "x": "p", "y": None}, {"id": 2, "x": "q", "y": None},
                               {"id": 3, "x": None, "y": 1.5}]


def test_merge_union_refuses_a_real_conflict(tmp_path, capsys) -> None:
    a, b, out = (str(tmp_path / n) for n in ("a.parquet", "b.parquet", "out.parquet"))
    pq.write_table(pa.table({"id": [1]}), a)
    pq.write_table(pa.table({"id": ["one"]}), b)
    assert main(["merge", a, b, out, "--union-schema"]) == 1
    err = capsys.readouterr().err
    assert "a.parquet" in err and "b.parquet" in err
    assert not os.path.exists(out)


def test_merge_keeps_sorting_columns_when_groups_stay_whole(tmp_path) -> None:
    a, b, out = (str(tmp_path / n) for n in ("a.parquet", "b.parquet", "out.parquet"))
    _sorted_file(a, 0)
    _sorted_file(b, 100)
    assert main(["merge", a, b, out]) == 0
    meta = pq.ParquetFile(out).metadata
    assert meta.num_row_groups == 6
    assert all(meta.row_group(i).sorting_columns == (pq.SortingColumn(0),) for i in range(6))


def test_key_value_metadata_given_as_bytes_is_decoded_not_repr(tmp_path) -> None:
    path = str(tmp_path / "kv.parquet")
    pc.write_table({"a": [1]}, path, key_value_metadata={b"k": b"v\xc3\xa9"})
    assert pq.ParquetFile(path).metadata.metadata[b"k"] == "vé".encode()
    with pytest.raises(ValueError, match="not UTF-8"):
        pc.write_table({"a": [1]}, str(tmp_path / "bad.parquet"), key_value_metadata={"k": b"\xff"})
