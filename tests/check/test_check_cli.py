"""``pqc check``: text and JSON output, exit status, key options, ``--list-rules``; the README's
rule table is the registry's, and every rule is exercised by a test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parquet_core.validation import RULES, rules_table
from parquet_core.cli import main, sample_path

ROOT = Path(__file__).resolve().parents[2]


def test_ok_file_exits_0(capsys):
    assert main(["check", sample_path()]) == 0
    out = capsys.readouterr().out
    assert "OK" in out


def test_error_exits_1_and_json_shape(corpus, capsys):
    bad = str(corpus / "rle-dict-uncompressed-corrupt-checksum.parquet")
    assert main(["check", "--json", "--level", "pages", sample_path(), bad]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["ok"] for r in lines] == [True, False]
    f = lines[1]["findings"][0]
    assert set(f) == {"severity", "rule", "message", "spec", "row_group", "column", "page", "offset"}
    assert f["rule"] == "pages.crc" and f["row_group"] == 0 and f["page"] == 0 and f["column"] == "long_field"
    assert lines[1]["file"] == bad


def test_unreadable_exits_2(tmp_path, capsys):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    assert main(["check", sample_path(), str(junk), str(tmp_path / "missing.parquet")]) == 2
    out = capsys.readouterr().out
    assert "footer.magic" in out and "file.unreadable" in out


def test_key_options(corpus, capsys):
    f = str(corpus / "encrypt_columns_and_footer.parquet.encrypted")
    assert main(["check", f]) == 2     # encrypted footer, no key
    assert main(["check", f, "--footer-key", "0123456789012345", "--column-key", "double_field:1234567890123450",
                 "--column-key", "float_field:1234567890123451"]) == 0
    assert "OK" in capsys.readouterr().out.splitlines()[-1]


def test_list_rules(capsys):
    assert main(["check", "--list-rules"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == rules_table()
    assert len(out.splitlines()) == len(RULES) + 2


def test_no_file_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["check"])
    assert exc.value.code == 2


def test_docs_rule_table_is_generated_from_the_code():
    page = (ROOT / "docs" / "guide" / "check.md").read_text(encoding="utf-8")
    start = page.index("<!-- rules:start -->") + len("<!-- rules:start -->")
    end = page.index("<!-- rules:end -->")
    assert page[start:end].strip() == rules_table(), \
        "docs/guide/check.md rule table is stale: regenerate it with `python docs/regen_rules.py`"
    sev = [r.severity for r in RULES.values()]
    assert (f"The rules ({len(sev)}: {sev.count('error')} errors, {sev.count('warning')} warnings, "
            f"{sev.count('info')} infos)") in page, "rule count line is stale: `python docs/regen_rules.py`"


def test_every_rule_has_a_test():
    text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "check").glob("test_*.py")
                   if p.name != Path(__file__).name)
    named = set(re.findall(r'"([a-z_\-]+\.[a-z0-9\-]+)"', text))
    missing = sorted(set(RULES) - named)
    assert not missing, f"rules without a test naming them: {missing}"


def test_every_rule_is_documented():
    for r in RULES.values():
        assert r.summary and r.spec and r.severity in ("error", "warning", "info"), r
        assert re.fullmatch(r"[a-z_\-]+(\.[a-z0-9\-]+)+", r.id), r.id


def test_strict_reading(corpus, tmp_path):
    import parquet_core as pc
    from tests._support.check_files import plain
    from tests.check.broken import edit_footer

    assert pc.read_table(plain(), strict=True).num_rows == 1000
    bad = edit_footer(plain(), lambda m: setattr(m.row_groups[1].columns[0].meta_data.statistics, "max_value",
                                                 (600).to_bytes(8, "little")))
    assert pc.read_table(bad).num_rows == 1000          # lenient by default
    pf = pc.ParquetFile(bad, strict=True)               # the footer alone is fine
    with pytest.raises(pc.ParquetFormatError, match="statistics.max-below-value"):
        pf.read()
    with pytest.raises(pc.ParquetFormatError, match="footer.num-rows"):
        pc.ParquetFile(edit_footer(plain(), lambda m: setattr(m, "num_rows", 5)), strict=True)
    # a file read leniently (fastparquet's fixed-width text) is refused only if it breaks a MUST
    f = corpus / "rle-dict-uncompressed-corrupt-checksum.parquet"
    with pytest.raises(pc.ParquetFormatError):
        pc.read_table(f, strict=True, page_checksum_verification=False)


def test_filesystem_argument(tmp_path):
    import io

    import parquet_core as pc

    class MemoryFs:   # the pyarrow.fs spelling: open_input_file(path) -> a binary file object
        def __init__(self, files):
            self.files = files

        def open_input_file(self, path):
            return io.BytesIO(self.files[path])

    data = open(sample_path(), "rb").read()
    report = pc.check("bucket/sample.parquet", filesystem=MemoryFs({"bucket/sample.parquet": data}))
    assert report.ok and report.file == "bucket/sample.parquet"


def test_check_reads_urls_through_fsspec():
    """``pc.check`` opens URLs like every read entry point (here fsspec's memory store)."""
    pytest.importorskip("fsspec")
    import parquet_core as pc

    pc.write_table({"a": [1, 2, None]}, "memory://pqcore-check/x.parquet")
    report = pc.check("memory://pqcore-check/x.parquet")
    assert report.ok and report.readable, report.findings
    import parquet_core.validation as validation_module
    assert hasattr(validation_module, "RULES")   # the package is not hidden by pc.check
