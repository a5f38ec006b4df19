"""``pc.check`` over the whole parquet-testing corpus (encrypted files with their keys).

Every file is checked at the ``data`` level (the 2 GiB map file at ``pages``).
A few corpus files are broken on purpose, or carry a real contradiction; they
must report exactly the errors listed here, every other file none.  Warnings
must name a declared rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.validation import RULES
from tests.encryption.corpus_keys import COLUMNS_16, EXTERNAL, FILES, FOOTER_16, decryption

#: file -> the error rules it must report (and no others)
EXPECTED_ERRORS = {
    # bad CRCs on purpose
    "datapage_v1-corrupt-checksum.parquet": {"pages.crc", "page_index.null-pages", "page_index.null-counts"},
    "rle-dict-uncompressed-corrupt-checksum.parquet": {"pages.crc"},
    # parquet-mr 1.13.0-SNAPSHOT wrote a column index whose pages are all "null pages" with
    # null count -1 although every page holds 2560 values: a reader pruning with it skips
    # pages that match (e.g. for `a IS NOT NULL`)
    "datapage_v1-snappy-compressed-checksum.parquet": {"page_index.null-pages", "page_index.null-counts"},
    "datapage_v1-uncompressed-checksum.parquet": {"page_index.null-pages", "page_index.null-counts"},
}
SLOW = {"large_string_map.brotli.parquet"}


def _corpus_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.parquet*") if not p.name.endswith(".json"))


def _decryption(corpus: Path, name: str):
    if name in FILES:
        return decryption(name)
    if name == EXTERNAL:
        from parquet_core.encryption import keytools

        masters = {"kf": FOOTER_16.decode(), "kc1": COLUMNS_16["double_field"].decode(),
                   "kc2": COLUMNS_16["float_field"].decode()}
        factory = keytools.CryptoFactory(lambda config: keytools.InMemoryKms(masters))
        return factory.file_decryption_properties(keytools.KmsConnectionConfig(), parquet_file_path=corpus / name)
    return None


def test_corpus(corpus):
    names = _corpus_files(corpus)
    assert len(names) > 80
    problems = []
    for name in names:
        report = pc.check(corpus / name, level="pages" if name in SLOW else "data",
                          decryption=_decryption(corpus, name))
        errors = report.rules("error")
        if not report.readable or errors != EXPECTED_ERRORS.get(name, set()):
            problems.append(f"{name}: readable={report.readable} errors={sorted(errors)}\n  " +
                            "\n  ".join(str(f) for f in report.errors[:5]))
        problems += [f"{name}: undeclared rule {f.rule}" for f in report.findings if f.rule not in RULES]
        if name in FILES or name == EXTERNAL:   # the keys open everything
            assert not report.rules("info"), (name, [str(f) for f in report.findings])
    assert not problems, "\n".join(problems)


def test_corpus_known_warnings(corpus):
    """Writer quirks of corpus files are recognised by name."""
    expect = {
        "nation.dict-malformed.parquet": "writers.parquet-816",
        "repeated_no_annotation.parquet": "writers.parquet-rs-num-rows",
        "dict-page-offset-zero.parquet": "footer.dictionary-offset-zero",
        "hadoop_lz4_compressed.parquet": "footer.codec-lz4-deprecated",
        "nan_in_stats.parquet": "statistics.nan-bound",
        "alltypes_tiny_pages.parquet": "pages.dictionary-page-offset-unset",
    }
    for name, rule in expect.items():
        assert rule in pc.check(corpus / name).rules("warning"), name


@pytest.mark.parametrize("level", ["footer", "pages"])
def test_corpus_without_keys_never_raises(corpus, level):
    for name in _corpus_files(corpus):
        report = pc.check(corpus / name, level=level)
        if name.endswith(".encrypted") and not report.readable:
            assert report.rules("info") == {"encryption.footer-key-needed"}, name
