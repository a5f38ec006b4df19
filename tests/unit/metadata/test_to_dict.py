"""to_dict() and repr of the metadata wrappers, page headers and page indexes (issue 19).

Expected values come from pyarrow's view of the same files."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc


@pytest.fixture()
def written(tmp_path):
    path = str(tmp_path / "t.parquet")
    table = pa.table({"i": pa.array([3, 1, None, 7] * 50, pa.int64()),
                      "s": pa.array(["b", "a", "c", None] * 50)})
    pq.write_table(table, path, compression="zstd", row_group_size=120, write_page_index=True,
                   data_page_size=64, write_batch_size=10, use_dictionary=["s"])
    return path


def test_file_metadata_to_dict_matches_pyarrow(written):
    md = pc.ParquetFile(written).metadata
    d = md.to_dict()
    json.dumps(d)          # JSON-ready
    ref = pq.ParquetFile(written).metadata
    assert d["num_rows"] == ref.num_rows
    assert d["created_by"] == ref.created_by
    assert len(d["row_groups"]) == ref.num_row_groups
    for i, rg in enumerate(d["row_groups"]):
        assert rg["num_rows"] == ref.row_group(i).num_rows
        for j, col in enumerate(rg["columns"]):
            want = ref.row_group(i).column(j)
            meta = col["meta_data"]
            assert meta["codec"] == want.compression            # "ZSTD"
            assert meta["type"] == want.physical_type           # "INT64", "BYTE_ARRAY"
            assert sorted(meta["encodings"]) == sorted(want.encodings)
            assert meta["total_compressed_size"] == want.total_compressed_size
    assert [e["repetition_type"] for e in d["schema"][1:]] == ["OPTIONAL", "OPTIONAL"]
    assert d["schema"][2]["converted_type"] == "UTF8"
    assert "ZSTD" in repr(md.row_group(0).column(0)) and "INT64" in repr(md.row_group(0).column(0))
    assert "num_rows=120" in repr(md.row_group(0))


def test_page_headers_are_typed(written):
    pf = pc.ParquetFile(written)
    ref = pq.ParquetFile(written).metadata.row_group(0).column(1)
    heads = pf.page_headers(0, "s")
    assert heads[0].page_type == "DICTIONARY_PAGE" and heads[0].encoding == "PLAIN"
    data = heads[1:]
    assert {h.page_type for h in data} == {"DATA_PAGE"}
    assert {h.encoding for h in data} == {"RLE_DICTIONARY"}
    assert sum(h.num_values for h in data) == ref.num_values
    assert heads[0].offset == ref.dictionary_page_offset and data[0].offset == ref.data_page_offset
    d = data[0].to_dict()
    json.dumps(d)
    assert d["page_type"] == "DATA_PAGE" and d["data_page_header"]["encoding"] == "RLE_DICTIONARY"
    assert d["data_page_header"]["definition_level_encoding"] == "RLE"
    assert "DATA_PAGE" in repr(data[0])
    assert sum(h.header_size + h.compressed_page_size for h in heads) == ref.total_compressed_size


def test_page_index_to_dict(written):
    pf = pc.ParquetFile(written)
    rg = pq.ParquetFile(written).metadata.row_group(0)
    ci = pf.column_index(0, "i").to_dict()
    oi = pf.offset_index(0, "i").to_dict()
    json.dumps([ci, oi])
    n = len(oi["page_locations"])
    assert n > 1 and len(ci["min_values"]) == n
    assert ci["boundary_order"] in ("UNORDERED", "ASCENDING", "DESCENDING")
    col = rg.column(0)
    assert min(v for v in ci["min_values"] if v is not None) == col.statistics.min
    assert max(v for v in ci["max_values"] if v is not None) == col.statistics.max
    assert sum(ci["null_counts"]) == col.statistics.null_count
    assert oi["page_locations"][0]["offset"] == col.data_page_offset
    assert oi["page_locations"][0]["first_row_index"] == 0
