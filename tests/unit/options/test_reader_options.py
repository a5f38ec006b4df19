"""``ReaderOptions``: one frozen object for every read option, checked once, built by every entry point.

* each option refuses a bad value with a message naming it, whether given to
  ``ReaderOptions``, ``pc.ParquetFile``, ``pc.read_table`` or ``pc.ParquetDataset``;
* unknown names are refused; pyarrow's ``decryption_properties`` is ``decryption``;
* the defaults the docs show are the ones applied, and come from the field definitions;
* the object an entry point builds is the one the files below it use;
* the data read is the same as pyarrow's whatever the options.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.options import READER_ALIASES, ReaderOptions, document_reader_options, reader_options

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

KEY = b"0123456789012345"

#: option -> a value of the wrong type or outside its set (every option must have one)
BAD = {
    "page_checksum_verification": "yes",
    "decryption": b"0123456789012345",
    "read_dictionary": "name",
    "strict": 1,
    "use_threads": "no",
    "max_page_bytes": "1 MiB",
    "max_decoded_bytes": 2.5,
    "coerce_int96_timestamp_unit": 1000,
    "binary_type": "utf8",
    "list_type": "fixed_size_list",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("reader_options")
    table = pa.table({"a": pa.array(np.arange(50, dtype=np.int64)),
                      "s": pa.array([f"v{i % 7}" for i in range(50)])})
    plain = root / "plain.parquet"
    pq.write_table(table, plain, row_group_size=20, write_page_checksum=True)
    folder = root / "ds"
    (folder / "k=1").mkdir(parents=True)
    pq.write_table(table, folder / "k=1" / "part.parquet")
    enc = root / "enc.parquet"
    pc.write_table(table, enc, encryption=pc.FileEncryptionProperties(footer_key=KEY))
    return {"table": table, "plain": plain, "folder": folder, "enc": enc}


def test_every_option_has_a_bad_value_case():
    assert set(BAD) == {f.name for f in dataclasses.fields(ReaderOptions)}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_value_is_refused_naming_the_option(name):
    with pytest.raises(TypeError, match=name):
        ReaderOptions(**{name: BAD[name]})
    with pytest.raises(TypeError, match=name):
        ReaderOptions.from_kwargs(**{name: BAD[name]})


@pytest.mark.parametrize("name", sorted(set(BAD) - {"use_threads"}))
def test_entry_points_check_before_reading(files, name):
    for call in (lambda: pc.ParquetFile(files["plain"], **{name: BAD[name]}),
                 lambda: pc.read_table(files["plain"], **{name: BAD[name]}),
                 lambda: pc.read_table(files["folder"], **{name: BAD[name]}),
                 lambda: pc.ParquetDataset(files["folder"], **{name: BAD[name]})):
        with pytest.raises(TypeError, match=name):
            call()


def test_use_threads_is_checked_per_call_too(files):
    with pytest.raises(TypeError, match="use_threads"):
        pc.read_table(files["plain"], use_threads="no")
    with pc.ParquetFile(files["plain"]) as pf:
        with pytest.raises(TypeError, match="use_threads"):
            pf.read(use_threads=1)
        with pytest.raises(TypeError, match="use_threads"):
            next(pf.iter_batches(use_threads="yes"))


def test_read_dictionary_entries_must_be_names():
    with pytest.raises(TypeError, match="read_dictionary"):
        ReaderOptions(read_dictionary=["a", 3])
    assert ReaderOptions(read_dictionary=["a", "b", "a"]).read_dictionary == frozenset({"a", "b"})
    assert ReaderOptions(read_dictionary=None).read_dictionary == frozenset()


def test_unknown_names_are_refused(files):
    with pytest.raises(TypeError, match="page_checksum"):
        ReaderOptions.from_kwargs(page_checksum=True)
    with pytest.raises(TypeError, match="verify"):
        reader_options(None, verify=True)
    with pytest.raises(TypeError):
        pc.ParquetFile(files["plain"], verify_checksums=True)
    with pytest.raises(TypeError):
        pc.read_table(files["plain"], prebuffer=True)
    # pyarrow's tuning knobs are accepted (docs/pyarrow-parameters.md), their values checked
    assert pc.read_table(files["plain"], pre_buffer=True).num_rows == pc.read_table(files["plain"]).num_rows
    with pytest.raises(TypeError, match="pre_buffer"):
        pc.read_table(files["plain"], pre_buffer="yes")
    with pytest.raises(TypeError, match="ReaderOptions"):
        reader_options({"strict": True})


def test_frozen():
    opts = ReaderOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.strict = True   # type: ignore[misc]


def test_documented_defaults_are_the_applied_ones():
    applied = ReaderOptions()
    text = document_reader_options()
    for f in dataclasses.fields(ReaderOptions):
        shown = None if f.name == "read_dictionary" else getattr(applied, f.name)
        assert f"{f.name} : " in text and f"default {shown!r}" in text, f.name
        assert f.metadata["doc"], f.name
    assert applied.read_dictionary == frozenset()
    # ParquetFile's docstring is made from the same definitions
    for name in ("page_checksum_verification", "decryption", "read_dictionary", "strict"):
        assert f"{name} : " in pc.ParquetFile.__doc__


def test_signatures_take_options_and_pyarrows_alias():
    entry_points = [pc.ParquetFile.__init__, pc.read_table, pc.read_metadata, pc.read_schema,
                    pc.ParquetDataset.__init__]
    for fn in entry_points:
        params = inspect.signature(fn).parameters
        assert "options" in params and "decryption_properties" in params, fn
        assert "decryption" in params, fn
    # every option a file can be opened with is a keyword of ParquetFile and read_table
    for name in ("page_checksum_verification", "decryption", "read_dictionary", "strict"):
        assert name in inspect.signature(pc.ParquetFile.__init__).parameters
        assert name in inspect.signature(pc.read_table).parameters
    assert "use_threads" in inspect.signature(pc.read_table).parameters


def test_alias_and_overrides():
    dec = pc.FileDecryptionProperties(footer_key=KEY)
    assert ReaderOptions.from_kwargs(decryption_properties=dec).decryption is dec
    assert READER_ALIASES == {"decryption_properties": "decryption"}
    with pytest.raises(TypeError, match="twice"):
        ReaderOptions.from_kwargs(decryption=dec, decryption_properties=dec)
    base = ReaderOptions(strict=True, use_threads=False)
    # keywords beside options= override its fields; None means "not given"
    assert reader_options(base, strict=False) == ReaderOptions(strict=False, use_threads=False)
    assert reader_options(base, strict=None) is base
    assert base.replace(use_threads=True).use_threads is True
    assert base.threads(None) is False and base.threads(True) is True


def test_one_object_travels_down(files):
    opts = ReaderOptions(page_checksum_verification=False, read_dictionary=["s"], use_threads=False)
    with pc.ParquetFile(files["plain"], options=opts) as pf:
        assert pf.options is opts
    ds = pc.ParquetDataset(files["folder"], options=opts)
    assert ds.options is opts
    with ds.open_fragment(ds.fragments[0]) as pf:
        assert pf.options is opts
    ds = pc.ParquetDataset(files["folder"], strict=True)
    assert ds.options == ReaderOptions(strict=True)
    with ds.open_fragment(ds.fragments[0]) as pf:
        assert pf.options is ds.options


@pytest.mark.parametrize("opts", [ReaderOptions(), ReaderOptions(use_threads=False),
                                  ReaderOptions(page_checksum_verification=False, strict=True),
                                  ReaderOptions(read_dictionary=["s"])])
def test_reads_match_pyarrow_whatever_the_options(files, opts):
    want = pq.read_table(files["plain"], use_threads=False)
    got = pc.read_table(files["plain"], options=opts)
    assert got.to_arrow().cast(want.schema).equals(want)
    with pc.ParquetFile(files["plain"], options=opts) as pf:
        batches = [b.to_pylist() for b in pf.iter_batches(batch_size=17)]
    assert [row for b in batches for row in b] == want.to_pylist()
    got = pc.read_table(files["folder"], options=opts, columns=["a", "s"])
    assert got.to_arrow().cast(want.schema).equals(want)


def test_read_dictionary_from_options_keeps_dictionaries(files):
    want = pq.read_table(files["plain"], read_dictionary=["s"])
    got = pc.read_table(files["plain"], options=ReaderOptions(read_dictionary=["s"])).to_arrow()
    assert pa.types.is_dictionary(got.schema.field("s").type)
    assert got.column("s").to_pylist() == want.column("s").to_pylist()


def test_decryption_through_options_and_alias(files):
    dec = pc.FileDecryptionProperties(footer_key=KEY)
    want = files["table"].to_pylist()
    assert pc.read_table(files["enc"], decryption_properties=dec).to_pylist() == want
    assert pc.read_table(files["enc"], options=ReaderOptions(decryption=dec)).to_pylist() == want
    assert pc.read_schema(files["enc"], decryption_properties=dec).names == ["a", "s"]
    assert pc.read_metadata(files["enc"], options=ReaderOptions(decryption=dec)).num_rows == 50
    with pc.ParquetFile(files["enc"], decryption_properties=dec) as pf:
        assert pf.read().to_pylist() == want
    with pytest.raises(pc.ParquetEncryptionError):
        pc.read_table(files["enc"])


def test_checksum_option_reaches_the_pages(files, tmp_path):
    """A flipped byte in a page body: refused by default, read (wrongly) when verification is off."""
    data = bytearray(files["plain"].read_bytes())
    with pc.ParquetFile(files["plain"]) as pf:
        _, header_size, offset, stored, _ = pf.page_headers(0, "a")[-1]
    data[offset + header_size + len(stored) // 2] ^= 0xFF
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    with pytest.raises(pc.ParquetFormatError, match="CRC"):
        pc.read_table(bad, columns=["a"])
    with pytest.raises(pc.ParquetFormatError, match="CRC"):
        pc.read_table(bad, columns=["a"], options=ReaderOptions(page_checksum_verification=True))
    try:
        pc.read_table(bad, columns=["a"], options=ReaderOptions(page_checksum_verification=False))
    except pc.ParquetFormatError as exc:   # the damage may still break decoding, but not as a CRC
        assert "CRC" not in str(exc)


def test_docs_name_every_reader_option():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "reading.md").read_text(encoding="utf-8")
    section = text[text.index("Reading options are pyarrow's keywords"):]
    section = section[:section.index("```")]
    for f in dataclasses.fields(ReaderOptions):
        assert f"`{f.name}`" in section, f.name
