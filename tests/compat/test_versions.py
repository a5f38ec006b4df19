"""Several measured versions per reader: ``pqc compat --python``, the table merge, the target's version choice."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from parquet_core.compat.features import Written
from parquet_core.compat.runner import ReaderProcess
from parquet_core.compat.table import build
from parquet_core.metadata.features import measured_versions, pick_measurement
from parquet_core.validation.compat import target_findings

ROOT = Path(__file__).resolve().parents[2]
FAKE = "tests.compat.fake_readers"


def _wrapper(tmp_path: Path, version: str) -> str:
    """An 'interpreter' that is this one with a marker the fake reader reports as its version."""
    path = tmp_path / "python-other"
    path.write_text(f'#!/bin/sh\nPQC_FAKE_READER_VERSION={version} exec "{sys.executable}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.skipif(sys.platform != "linux", reason="a shell-script interpreter")
def test_reader_process_runs_under_the_given_interpreter(tmp_path: Path) -> None:
    proc = ReaderProcess(FAKE, timeout=30, python=_wrapper(tmp_path, "7.1")).start()
    try:
        assert proc.version == "7.1"
        assert proc.read(str(tmp_path / "fine.parquet"), Written("x", {"v": [1, 2]})).verdict == "ok"
    finally:
        proc.stop()
    default = ReaderProcess(FAKE, timeout=30).start()
    try:
        assert default.version == "0"
    finally:
        default.stop()


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PQC_FAKE_READER_VERSION"}
    return subprocess.run([sys.executable, "-m", "parquet_core.cli", "compat", "--no-progress", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**env, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="a shell-script interpreter")
def test_cli_python_option_records_the_other_version(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    proc = _cli("--readers", f"{FAKE},pc", "--python", f"{FAKE}={_wrapper(tmp_path, '3.2.1')}",
                "--features", "physical.INT32", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    run = json.loads(out.read_text())
    assert run["readers"][FAKE] == "3.2.1"
    assert run["readers"]["pc"] != "unavailable"
    assert run["features"][0]["results"][FAKE]["verdict"] in ("ok", "different")


@pytest.mark.parametrize("given, message", [
    ("pyarrow=" + sys.executable, "not among the readers run"),
    ("pc=/nonexistent/python", "no executable file"),
    ("pc", "READER=PATH"),
])
def test_cli_python_option_is_checked(given: str, message: str, capsys: pytest.CaptureFixture) -> None:
    from parquet_core.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["compat", "--no-progress", "--readers", "pc", "--python", given, "--features", "physical.INT32"])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def _run(generated: str, version: str, cells: dict[str, str], reader: str = "pyarrow") -> dict:
    return {"generated": generated, "readers": {reader: version}, "writers": {"pc": "1"},
            "features": [{"feature": f, "group": "g", "description": "", "file": "", "writer": "pc",
                          "results": {reader: {"verdict": v, "detail": f"{v} {f}", "seconds": 0.1}}}
                         for f, v in cells.items()]}


def test_build_keeps_each_version_of_a_reader() -> None:
    new = _run("2026-01-02", "26.0.1", {"a": "ok", "b": "refused", "c": "n/a"})
    old = _run("2026-01-01", "15.0.2", {"a": "refused", "b": "refused", "c": "different"})
    table = build([new, old], {"readers": {"pyarrow": {"version": "1", "features": {},
                                                       "release_notes": [{"feature": "a", "since": "9"}]}}},
                  fresh=True)
    entry = table["readers"]["pyarrow"]
    assert entry["version"] == "26.0.1" and set(entry["features"]) == {"b"}      # newest on top, n/a left out
    assert list(entry["older_versions"]) == ["15.0.2"]
    assert set(entry["older_versions"]["15.0.2"]["features"]) == {"a", "b", "c"}
    assert entry["release_notes"] == [{"feature": "a", "since": "9"}]          # hand entries kept
    assert set(measured_versions(entry)) == {"26.0.1", "15.0.2"}


def test_build_merges_onto_the_table_and_a_rerun_replaces_cells() -> None:
    first = build([_run("2026-01-01", "26.0.1", {"a": "refused", "b": "crash"})])
    # a later run of another version adds it; the measured version is kept
    second = build([_run("2026-02-01", "15.0.2", {"a": "refused"})], first)
    assert set(measured_versions(second["readers"]["pyarrow"])) == {"26.0.1", "15.0.2"}
    # a re-measurement of 26.0.1 that reads "a" removes that finding, "b" (not re-run) stays
    third = build([_run("2026-03-01", "26.0.1", {"a": "ok"})], second)
    entry = third["readers"]["pyarrow"]
    assert set(entry["features"]) == {"b"} and set(entry["older_versions"]["15.0.2"]["features"]) == {"a"}
    # --fresh forgets the table's measurements
    assert "older_versions" not in build([_run("2026-03-01", "26.0.1", {"a": "ok"})], second, fresh=True)["readers"]["pyarrow"]


_TABLE = {"readers": {"pyarrow": {
    "version": "26.0.1", "features": {"x": {"verdict": "refused", "detail": "new"}},
    "older_versions": {"18.1.0": {"features": {"y": {"verdict": "refused", "detail": "mid"}}},
                       "15.0.2": {"features": {"z": {"verdict": "refused", "detail": "old"}}}},
    "release_notes": [{"feature": "w", "since": "14.0", "source": "notes"}]}}}


@pytest.mark.parametrize("version, measured, caveat", [
    (None, "26.0.1", None), ("26", "26.0.1", None), ("15", "15.0.2", None), ("15.0.2", "15.0.2", None),
    ("18.1", "18.1.0", None), ("17", "15.0.2", "nearest measured version below 17"),
    ("20.0.0", "18.1.0", "nearest"), ("30", "26.0.1", "nearest"), ("12", "15.0.2", "oldest measured version"),
])
def test_pick_measurement(version: str | None, measured: str, caveat: str | None) -> None:
    got, _, why = pick_measurement(_TABLE["readers"]["pyarrow"], "pyarrow", version)
    assert got == measured
    assert (why == "") if caveat is None else (caveat in why)


def test_target_uses_the_measurement_of_its_version() -> None:
    used = {"x": "c", "y": "c", "z": "c", "w": "c"}

    def found(target: str) -> list[str]:
        return sorted(f for _, f, _ in target_findings(used, [target], _TABLE))
    assert found("pyarrow") == ["x"]
    assert found("pyarrow-26") == ["x"]
    assert found("pyarrow-19") == ["y"]
    assert found("pyarrow-15") == ["z"]
    assert found("pyarrow-13") == ["w", "z"]          # below the oldest: the oldest, plus release notes
    msg = [m for _, f, m in target_findings(used, ["pyarrow-16"], _TABLE) if f == "z"][0]
    assert "pyarrow 15.0.2" in msg and "nearest measured version below 16" in msg


def test_a_release_note_between_the_measurement_and_the_target_wins() -> None:
    table = {"readers": {"spark": {
        "version": "4.3.0", "features": {},
        "older_versions": {"3.5.3": {"features": {"bss": {"verdict": "refused", "detail": ""},
                                                  "other": {"verdict": "refused", "detail": ""}}}},
        "release_notes": [{"feature": "bss", "since": "4.0", "source": "notes"}]}}}
    used = {"bss": "c", "other": "c"}
    assert sorted(f for _, f, _ in target_findings(used, ["spark-4.0"], table)) == ["other"]
    assert sorted(f for _, f, _ in target_findings(used, ["spark-3.5"], table)) == ["bss", "other"]
    assert sorted(f for _, f, _ in target_findings(used, ["spark-3.9"], table)) == ["bss", "other"]


def test_a_one_version_table_still_reads() -> None:
    table = {"readers": {"spark": {"version": "4.3.0", "features": {"f": {"verdict": "refused", "detail": ""}}}}}
    assert [f for _, f, _ in target_findings({"f": "c"}, ["spark-3.5"], table)] == ["f"]
    assert [f for _, f, _ in target_findings({"f": "c"}, ["spark-4.3"], table)] == ["f"]


# --- the shipped table: versions measured with pqc compat --python (docs/compat-notes.md) ---

def _shipped(reader: str, version: str) -> dict:
    from parquet_core.metadata.features import load_table
    versions = measured_versions(load_table()["readers"].get(reader, {}))
    assert version in versions, f"parquet_core/_data/compat_table.json lost its {reader} {version} measurement"
    return versions[version]["features"]


def _warnings(path: Path, target: str, rule: str) -> list[str]:
    import parquet_core as pc
    report = pc.check(str(path), level="footer", targets=target)
    assert report.ok                                               # warnings only
    return [f.message for f in report.findings if f.rule == rule]


def test_pyarrow_15_does_not_read_geometry_pyarrow_26_does(tmp_path: Path) -> None:
    """Measured: pyarrow 15.0.2 refuses the GEOMETRY logical type ("Thrift LogicalType that is not
    recognized"), 26.0.1 reads it; no release-note entry covers it, so only the 15 measurement warns."""
    import parquet_core as pc
    assert "logical.GEOMETRY" in _shipped("pyarrow", "15.0.2")
    assert "logical.GEOMETRY" not in _shipped("pyarrow", "26.0.1")
    path = tmp_path / "g.parquet"
    pc.write_table({"g": [bytes.fromhex("0101000000000000000000f03f0000000000000040")]}, str(path),
                   schema=pc.schema([pc.field("g", pc.geometry())]))
    # (the geospatial statistics the writer adds draw their own warning, stats.geospatial)
    old = [m for m in _warnings(path, "pyarrow-15", "compat.pyarrow") if "logical.GEOMETRY" in m]
    assert len(old) == 1 and "refused on pyarrow 15.0.2" in old[0]
    assert "nearest" not in old[0] and "oldest" not in old[0]       # a measured version: no caveat
    assert _warnings(path, "pyarrow-26", "compat.pyarrow") == []
    assert _warnings(path, "pyarrow", "compat.pyarrow") == []
    between = [m for m in _warnings(path, "pyarrow-20", "compat.pyarrow") if "logical.GEOMETRY" in m]
    assert len(between) == 1 and "nearest measured version below 20" in between[0]


def test_older_duckdb_and_polars_do_not_read_float16(tmp_path: Path) -> None:
    """Measured: duckdb 1.1.3 returns FLOAT16 as its two raw bytes, polars 1.0.0 refuses the file;
    duckdb 2.0.1 and polars 2.1.0 read it."""
    import parquet_core as pc
    path = tmp_path / "h.parquet"
    pc.write_table({"h": [1.5, None]}, str(path), schema=pc.schema([pc.field("h", pc.float16())]))
    for reader, old, new in (("duckdb", "1.1", "2.0"), ("polars", "1.0", "2.1")):
        assert "logical.FLOAT16" in _shipped(reader, {"duckdb": "1.1.3", "polars": "1.0.0"}[reader])
        got = _warnings(path, f"{reader}-{old}", f"compat.{reader}")
        assert len(got) == 1 and "logical.FLOAT16" in got[0], (reader, got)
        assert _warnings(path, f"{reader}-{new}", f"compat.{reader}") == []


def test_spark_35_does_not_read_byte_stream_split_floats(tmp_path: Path) -> None:
    """Measured: Spark 3.5.3 refuses BYTE_STREAM_SPLIT even on FLOAT/DOUBLE ("Unsupported encoding:
    BYTE_STREAM_SPLIT", its vectorized reader), Spark 4.3.0 reads it; the release-note entries cover
    only BYTE_STREAM_SPLIT on ints and FLBA."""
    import parquet_core as pc
    assert "encoding.BYTE_STREAM_SPLIT.double" in _shipped("spark", "3.5.3")
    assert "encoding.BYTE_STREAM_SPLIT.double" not in _shipped("spark", "4.3.0")
    path = tmp_path / "d.parquet"
    pc.write_table({"d": [1.5, 2.5]}, str(path), column_encoding="byte_stream_split", use_dictionary=False)
    got = [m for m in _warnings(path, "spark-3.5", "compat.spark") if "BYTE_STREAM_SPLIT" in m]
    assert len(got) == 1 and "spark 3.5.3" in got[0], got
    assert [m for m in _warnings(path, "spark-4.3", "compat.spark") if "BYTE_STREAM_SPLIT" in m] == []
