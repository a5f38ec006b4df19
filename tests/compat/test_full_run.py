"""The whole matrix over every installed reader (slow: minutes, Spark's start included)."""

from __future__ import annotations

import pytest

from parquet_core.compat.features import select
from parquet_core.compat.runner import run
from tests.spark.deploy import CONF_DIR


@pytest.mark.slow
def test_full_run_every_cell_has_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    # the Spark reader's JVM (its child inherits the environment) gets the deployment tests'
    # spark-defaults: C1 only, serial GC.  CPU, not behaviour: 134 one-file reads never pay
    # back C2's compiling (the reader's child: 90 -> 56 s of CPU)
    monkeypatch.setenv("SPARK_CONF_DIR", str(CONF_DIR))
    result = run(select(), timeout=120, progress=False)
    for row in result.rows:
        # parquet_core reads back every feature it writes
        assert row.results["pc"].verdict == "ok", (row.feature, row.results["pc"])
        for name, cell in row.results.items():
            assert cell.verdict in ("ok", "different", "refused", "crash", "n/a"), (row.feature, name)
            if cell.verdict in ("different", "refused", "crash"):
                assert cell.detail, (row.feature, name)
        if row.feature.startswith("encryption.kms_"):
            # the KMS readers (their crypto factories, a test KMS client each) read our key tools' files
            for name in ("pyarrow", "spark"):
                assert row.results[name].verdict == "ok", (row.feature, name, row.results[name])


@pytest.mark.parametrize("reader", ["pyarrow"])   # Spark's reading is checked in the full run above
def test_kms_encrypted_features_are_read_by_the_kms_readers(reader: str) -> None:
    """pyarrow and Spark take no explicit keys: files our key tools encrypted reach them through
    their crypto factories and a test KMS client each (their own code, not ours), and they read
    the values back; explicit-key encryption stays n/a for them."""
    from parquet_core.compat.readers import load

    try:
        load(reader).version()
    except Exception as exc:  # noqa: BLE001 - not installed here
        pytest.skip(f"{reader} unavailable: {exc}")
    result = run(select("encryption.kms_*,encryption.gcm_footer"), readers=["pc", reader], timeout=300,
                 progress=False)
    verdicts = {row.feature: row.results[reader].verdict for row in result.rows}
    assert verdicts == {"encryption.gcm_footer": "n/a", "encryption.kms_double_wrapping": "ok",
                        "encryption.kms_single_wrapping": "ok"}, {
        row.feature: row.results[reader] for row in result.rows}
