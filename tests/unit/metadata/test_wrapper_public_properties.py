"""The wrapper properties adapters read instead of ``.raw`` (pqmeta), against pyarrow's metadata."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

import parquet_core as pc


def test_row_group_and_chunk_properties_match_pyarrow(tmp_path):
    path = str(tmp_path / "f.parquet")
    table = pa.table({"a": list(range(100)), "b": [str(i % 7) for i in range(100)]})
    pq.write_table(table, path, row_group_size=40, write_page_index=True,
                   sorting_columns=[pq.SortingColumn(0, descending=True, nulls_first=True)])
    want = pq.ParquetFile(path).metadata
    got = pc.ParquetFile(path).metadata
    for i in range(want.num_row_groups):
        wrg, grg = want.row_group(i), got.row_group(i)
        assert grg.sorting_columns == [(s.column_index, s.descending, s.nulls_first)
                                       for s in wrg.sorting_columns]
        assert grg.total_compressed_size in (None, sum(wrg.column(j).total_compressed_size
                                                       for j in range(wrg.num_columns)))
        assert grg.ordinal in (None, i)
        for j in range(wrg.num_columns):
            wc, gc = wrg.column(j), grg.column(j)
            assert (gc.column_index_offset is not None) == wc.has_column_index
            assert (gc.offset_index_offset is not None) == wc.has_offset_index
            assert gc.encryption_key is None and gc.key_metadata is None
            assert grg.column_encryption(j) == (None, None, None)
            stats = gc.encoding_stats
            assert stats is not None and {e for _, e, _ in stats} <= set(wc.encodings)
            assert sum(n for t, _, n in stats if t.startswith("DATA_PAGE")) >= 1


def test_encrypted_chunk_readable_without_key(tmp_path):
    path = str(tmp_path / "e.parquet")
    key, col_key = b"0123456789012345", b"1234567890123450"
    props = pc.FileEncryptionProperties(footer_key=key, column_keys={"b": col_key})
    pc.write_table({"a": [1, 2], "b": ["x", "y"]}, path, encryption=props)
    md = pc.ParquetFile(path, decryption=pc.FileDecryptionProperties(footer_key=key)).metadata
    assert md.row_group(0).column_encryption(1)[:2] == ("column", ("b",))
    assert md.row_group(0).column_encryption(0)[0] in (None, "footer")



def test_key_value_metadata_a_new_dict_each_call(tmp_path):
    """``FileMetadata.metadata`` equals pyarrow's, and each call gives a dict of its own (it
    is built once per footer: a change made to one call's dict is not seen by the next)."""
    path = str(tmp_path / "kv.parquet")
    table = pa.table({"a": [1, 2, 3]}).replace_schema_metadata({"k": "v", "other": "x" * 300})
    pq.write_table(table, path)
    md = pc.ParquetFile(path).metadata
    first = md.metadata
    assert first == pq.ParquetFile(path).metadata.metadata
    first[b"k"] = b"changed"
    del first[b"other"]
    assert md.metadata[b"k"] == b"v" and b"other" in md.metadata
    assert md.metadata is not md.metadata
