"""Rebuild the hand-made regression files in ``tests/fuzz/regressions/``.

Each file is a small seed with one footer value rewritten by the fuzzer's own
walker (:mod:`tests.fuzz.mutate`), so how it was made stays reviewable::

    python -m tests.fuzz.build_regressions

Files found by a campaign are copied there directly instead (see README.md).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from tests.fuzz.mutate import layout_of, set_int

HERE = Path(__file__).parent / "regressions"


def set_field(data: bytes, path: str, value: int) -> bytes:
    """Set the integer field at ``path`` (as the walker names it) to ``value``."""
    lay = layout_of(data)
    item = next(i for i in lay.items if i.kind == "int" and i.path == path)
    return set_int(data, lay, item, value)


def tiny_page_index_file() -> bytes:
    """Ten int64 rows in two pages, with a column index and an offset index."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"id": list(range(10))}, sink, compression="none", write_page_index=True,
                   data_page_row_count_limit=5)
    return sink.getvalue()


def lz4_raw_file() -> bytes:
    """One LZ4_RAW column chunk of one plain data page, and no page index after it."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"id": list(range(100))}, sink, compression="lz4_raw", write_page_index=False,
                   use_dictionary=False)
    return sink.getvalue()


def grown_page_size(data: bytes, value: int) -> bytes:
    """Set the only page's ``uncompressed_page_size``, growing the chunk's size by the bytes the
    varint gained, so the page still lies inside its chunk (nothing else follows the chunk)."""
    lay = layout_of(data)
    item = next(i for i in lay.items if i.kind == "int" and i.path.endswith("page[0].uncompressed_page_size"))
    out = set_int(data, lay, item, value)
    grown = len(out) - len(data)
    return set_field(out, "row_groups[0].columns[0].meta_data.total_compressed_size",
                     int(next(i for i in lay.items if i.kind == "int" and
                              i.path == "row_groups[0].columns[0].meta_data.total_compressed_size").value) + grown)


def decimal_file() -> bytes:
    """A decimal(4, 2) column; from the corpus when present, else written here."""
    root = os.environ.get("PARQUET_TEST_DATA")
    if root and (Path(root) / "int32_decimal.parquet").is_file():
        return (Path(root) / "int32_decimal.parquet").read_bytes()
    raise SystemExit("set PARQUET_TEST_DATA to the parquet-testing data folder")


def _edited(data: bytes, edit) -> bytes:  # type: ignore[no-untyped-def]
    from tests.interop.footer_edit import edit_footer

    return edit_footer(data, edit)


def _chunks_in(file_path: str):  # type: ignore[no-untyped-def]
    def edit(meta) -> None:  # type: ignore[no-untyped-def]
        for cc in meta.row_groups[0].columns:
            cc.file_path = file_path
    return edit


def small_file() -> bytes:
    """Two columns (int64, string), twenty rows, one row group."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"id": list(range(20)), "name": [f"n{i % 3}" for i in range(20)]}, sink, compression="none")
    return sink.getvalue()


def wide_footer(columns: int) -> bytes:
    """A file of just a footer: *columns* INT32 columns and no row group."""
    import struct

    from parquet_core.thrift import pt
    from parquet_core.thrift.codec import serialize

    schema = [pt.SchemaElement(name="schema", num_children=columns)]
    schema += [pt.SchemaElement(type=pt.Type.INT32, repetition_type=pt.FieldRepetitionType.OPTIONAL,
                                name=f"c{i}") for i in range(columns)]
    footer = serialize(pt.FileMetaData(version=2, schema=schema, num_rows=0, row_groups=[], created_by="build"))
    return b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"


def many_pages(pages: int) -> bytes:
    """One boolean column chunk of *pages* one-value data pages."""
    import parquet_core as pc

    sink = io.BytesIO()
    pc.write_table({"b": [i % 3 == 0 for i in range(pages)]}, sink, compression="none", use_dictionary=False,
                   data_page_row_count_limit=1, write_page_index=False)
    return sink.getvalue()


def long_key_id(size: int) -> bytes:
    """A plaintext-footer encrypted file whose footer key's masterKeyID is *size* characters."""
    import parquet_core as pc
    from parquet_core.encryption.keytools import InMemoryKms

    kid = "K" * size
    factory = pc.CryptoFactory(lambda config: InMemoryKms({kid: b"0123456789012345"}))
    props = factory.file_encryption_properties(
        pc.KmsConnectionConfig(), pc.EncryptionConfiguration(footer_key=kid, uniform_encryption=True,
                                                             plaintext_footer=True))
    sink = io.BytesIO()
    pc.write_table({"id": list(range(10))}, sink, encryption=props, compression="none")
    return sink.getvalue()


def hostile_strings(size: int) -> bytes:
    """A column name, created_by, key/value entries and statistics of *size* characters each."""
    def edit(meta) -> None:  # type: ignore[no-untyped-def]
        from parquet_core.thrift import pt

        meta.schema[1].name = "n" * size
        meta.row_groups[0].columns[0].meta_data.path_in_schema = ["n" * size]
        meta.created_by = "parquet-mr version 1.12.0 (build " + "b" * size + ")"
        meta.key_value_metadata = [pt.KeyValue(key="k" * size, value="v" * size),
                                   pt.KeyValue(key="k" * size, value="w")]
        st = meta.row_groups[0].columns[1].meta_data.statistics
        if st is not None:
            st.min_value, st.max_value = b"z" * size, b"a" * size
    return _edited(small_file(), edit)


def build() -> dict[str, bytes]:
    out = {}
    # scale far above precision: decimal(4, 2147483647)
    out["known-decimal-scale-2147483647.parquet"] = set_field(decimal_file(), "schema[1].scale", 2**31 - 1)
    # found by the campaign (seed 20240603): a negative scale, decimal(4, -2147483648)
    out["decimal-scale-negative-int32-min.parquet"] = set_field(decimal_file(), "schema[1].scale", -(2**31))
    # an LZ4_RAW page declaring 2**31-1 uncompressed bytes (lz4 allocates the declared size up front)
    out["lz4raw-page-declares-2gib-uncompressed.parquet"] = grown_page_size(lz4_raw_file(), 2**31 - 1)
    small = tiny_page_index_file()
    # a row group declaring a negative row count, read with filters (page-index path)
    out["known-rowgroup-num-rows-minus-2-filters.parquet"] = set_field(small, "row_groups[0].num_rows", -2)
    # a row group declaring 2**63-1 rows, read with filters (page-index path)
    out["known-rowgroup-num-rows-int64-max-filters.parquet"] = set_field(small, "row_groups[0].num_rows",
                                                                         2**63 - 1)
    # issue 29: hostile footers.  ColumnChunk.file_path naming the folder itself, a missing file and
    # a 16 KiB name (a FIFO or a symbolic link cannot be stored here: tests/check/test_external_chunks.py)
    plain = small_file()
    out["external-chunk-file-path-dot.parquet"] = _edited(plain, _chunks_in("."))
    out["external-chunk-file-path-missing.parquet"] = _edited(plain, _chunks_in("nowhere.parquet"))
    out["external-chunk-file-path-16kib.parquet"] = _edited(plain, _chunks_in("f" * 16384))
    # a writer version of 5000 digits (int() refuses more than 4300)
    out["created-by-version-5000-digits.parquet"] = _edited(
        plain, lambda meta: setattr(meta, "created_by", "parquet-mr version " + "9" * 5000))
    # 8 KiB name, created_by, key/value entries and statistics, a 16 KiB masterKeyID (quoted cut short)
    out["strings-8kib-name-created-by-kv-stats.parquet"] = hostile_strings(8192)
    out["footer-key-id-16kib.parquet"] = long_key_id(16384)
    # check was quadratic in the children of a group and in the data pages of a chunk (the sizes
    # that showed it take too long for the fuzzer's 10 s per mutant: tests/check/test_check_scaling.py)
    out["schema-1k-children-wide.parquet"] = wide_footer(1000)
    out["chunk-1500-pages.parquet"] = many_pages(1500)
    return out


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, data in build().items():
        (HERE / name).write_bytes(data)
        print(f"wrote {HERE / name} ({len(data)} bytes)")
