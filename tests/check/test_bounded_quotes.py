"""Values a file controls are quoted cut short (issue 29, item 6): a megabytes-long key id,
column name, created_by, key/value entry, statistics value or file_path never ends up whole
in an exception message, a finding or ``pqc check --json``."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pytest

import parquet_core as pc
from parquet_core.cli import main
from parquet_core.encryption.keytools import InMemoryKms
from parquet_core.errors import QUOTE_LIMIT, quoted
from parquet_core.thrift import pt
from tests.check.broken import edit_footer, pyarrow_bytes

BIG = 1_500_000
#: far more than a message quoting a few cut values needs, far less than one whole value
BOUND = 4000

TABLE = pa.table({"a": pa.array([1, 2, 3], pa.int64()), "s": pa.array(["x", "y", "z"])})


def test_quoted_cuts_long_values_and_keeps_short_ones():
    assert quoted("abc") == "'abc'" and quoted(b"\x00") == "b'\\x00'" and quoted(7) == "7"
    assert quoted("a.b", bare=True) == "a.b"
    long = quoted("x" * 10_000)
    assert long.startswith("'" + "x" * QUOTE_LIMIT + "'") and long.endswith("...(10000 characters)")
    assert quoted(memoryview(b"y" * 5000)).endswith("...(5000 bytes)")
    assert len(quoted("\U0001f600" * 10_000)) < 6 * QUOTE_LIMIT       # escapes cannot blow it up
    assert len(quoted(list(range(100_000)))) < 6 * QUOTE_LIMIT
    assert len(pc.ParquetFormatError("z" * 100_000).args[0]) < 2 * pc.errors.MESSAGE_LIMIT


def _long_name(m):
    m.schema[1].name = "n" * BIG
    m.row_groups[0].columns[0].meta_data.path_in_schema = ["n" * BIG]
    m.row_groups[0].columns[0].meta_data.total_compressed_size = 10 ** 9    # an error at that column


def _long_path_mismatch(m):
    m.schema[1].name = "n" * BIG
    m.row_groups[0].columns[0].meta_data.path_in_schema = ["m" * BIG]


def _long_created_by(m):
    # parquet-mr 1.12.0 and a wrong RowGroup.file_offset: check names that bug, quoting created_by
    m.created_by = "parquet-mr version 1.12.0 (build " + "b" * BIG + ")"
    m.row_groups[0].file_offset = 1


def test_a_million_digit_writer_version_is_read(tmp_path):
    """``int()`` refuses strings of more than 4300 digits: the version must not go through it whole."""
    from parquet_core.metadata.compat import parse_created_by

    version = parse_created_by("parquet-mr version 1." + "9" * BIG)
    assert version.application == "parquet-mr" and version.version[0] == 1 and version.version[1] > 10 ** 9
    path = tmp_path / "v.parquet"
    path.write_bytes(edit_footer(pyarrow_bytes(TABLE), lambda m: setattr(m, "created_by", "parquet-mr version "
                                                                         + "9" * BIG)))
    assert pc.read_table(path).to_pydict() == TABLE.to_pydict()


def _long_key_values(m):
    m.key_value_metadata = [pt.KeyValue(key="k" * BIG, value="v" * BIG), pt.KeyValue(key="k" * BIG, value="w"),
                            pt.KeyValue(key="ARROW:schema", value="!" * BIG)]


def _long_statistics(m):
    st = m.row_groups[0].columns[1].meta_data.statistics
    st.min_value, st.max_value = b"z" * BIG, b"a" + b"\xff" * BIG          # min above max, and wrong


def _long_file_path(m):
    m.row_groups[0].columns[0].file_path = "f" * BIG


EDITS = [_long_name, _long_path_mismatch, _long_created_by, _long_key_values, _long_statistics, _long_file_path]


def _encrypted(master: str, column: str) -> bytes:
    factory = pc.CryptoFactory(lambda config: InMemoryKms({master: b"0123456789012345", "k1": b"1234567890123450"}))
    props = factory.file_encryption_properties(
        pc.KmsConnectionConfig(), pc.EncryptionConfiguration(footer_key=master, column_keys=f"k1:{column}",
                                                             plaintext_footer=column != "a"))
    buf = io.BytesIO()
    pc.write_table(pa.table({column: [1, 2], "s": ["x", "y"]}), buf, encryption=props)
    return buf.getvalue()


def _wrong_kms():
    return pc.CryptoFactory(lambda config: InMemoryKms({"other": b"0123456789012345"})) \
        .file_decryption_properties(pc.KmsConnectionConfig())


def _cases():
    for edit in EDITS:
        yield pytest.param(lambda edit=edit: (edit_footer(pyarrow_bytes(TABLE), edit), None), id=edit.__name__)
    yield pytest.param(lambda: (_encrypted("K" * BIG, "a"), _wrong_kms()), id="long_master_key_id")
    yield pytest.param(lambda: (_encrypted("kf", "c" * BIG), None), id="long_encrypted_column")


def _message(exc: BaseException) -> str:
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])


@pytest.mark.parametrize("make", list(_cases()))
def test_messages_and_findings_stay_short(tmp_path, capsys, make):
    data, decryption = make()
    path = tmp_path / "hostile.parquet"
    path.write_bytes(data)
    kw = {} if decryption is None else {"decryption": decryption}
    raised = []
    for op in (lambda: pc.read_table(path, **kw), lambda: pc.ParquetFile(path, **kw).metadata.to_dict()):
        try:
            op()
        except pc.ParquetError as exc:
            raised.append(_message(exc))
    assert all(len(m) < BOUND for m in raised), [len(m) for m in raised]
    findings = []
    for level in ("footer", "data"):
        findings += pc.check(path, level=level, **kw).findings
    assert raised or findings       # each file is wrong somewhere: something was said about it
    assert all(len(f.message) < BOUND and len(f.column or "") < BOUND for f in findings), \
        [(f.rule, len(f.message), len(f.column or "")) for f in findings]
    main(["check", "--json", str(path)])
    out = capsys.readouterr().out
    report = json.loads(out)
    assert len(out) < BOUND * (1 + len(report["findings"]))
