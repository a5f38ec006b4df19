"""The CI rule of tests/conftest.py: under ``CI=true`` a missing prerequisite fails the run;
locally it skips, and the skip says how to get what is missing.

Each case runs pytest in a subprocess on one small test, with the environment
broken on purpose (a corpus path that does not exist, no Java on PATH, a module
that cannot be imported).  The cases that turn a skip into a CI failure (in a test,
at a module's collection, at session start) run as CI runs them, on pyproject's
xdist, where the reports are made in a worker and carried to the controller (one
worker, ``-n 1``: the path a report takes is the same with two, and each worker is an
interpreter importing the suite's plugins); the others check what a report says,
in-process (``-n 0``: a controller and two workers cost three times the CPU of one pytest).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS_TEST = "tests/conformance/test_corpus.py::test_corpus_present"
HOW_TO_CORPUS = "git clone https://github.com/apache/parquet-testing"


def _pytest(args: list[str], ci: bool, workers: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest in a subprocess; *workers*: with pyproject's xdist scheduling on one worker, else ``-n 0``."""
    full = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "JAVA_HOME")}
    if ci:
        full["CI"] = "true"
    full.update(env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-ra", "-p", "no:cacheprovider",
                           "-n", "1" if workers else "0", *args],
                          cwd=REPO, env=full, capture_output=True, text=True, timeout=300)


def _plugin_run(tmp_path: Path, body: str, ci: bool, plugins: tuple[str, ...] = ("tests.conftest",),
                workers: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a throw-away test module with the project's conftest(s) loaded as plugins."""
    test = tmp_path / "test_probe.py"
    test.write_text(textwrap.dedent(body))
    args = ["-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO)]
    for p in plugins:
        args += ["-p", p]
    # any existing folder passes the session's corpus check: these cases are about other skips
    env.setdefault("PARQUET_TEST_DATA", str(tmp_path))
    return _pytest([*args, str(test)], ci, workers, **env)


def test_ci_missing_corpus_fails_the_run_and_says_why():
    run = _pytest([CORPUS_TEST], ci=True, PARQUET_TEST_DATA="/nonexistent/parquet-testing/data")
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "corpus is missing" in out and "/nonexistent/parquet-testing/data" in out
    assert HOW_TO_CORPUS in out


def test_local_missing_corpus_skips_with_the_how_to():
    run = _pytest([CORPUS_TEST], ci=False, workers=False, PARQUET_TEST_DATA="/nonexistent/parquet-testing/data")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "1 skipped" in out
    assert HOW_TO_CORPUS in out and "PARQUET_TEST_DATA=<clone>/data" in out


def test_ci_with_the_corpus_present_runs_normally():
    corpus = os.environ.get("PARQUET_TEST_DATA")
    if not corpus or not os.path.isdir(corpus):
        pytest.skip("parquet-testing corpus not found (PARQUET_TEST_DATA)")
    run = _pytest([CORPUS_TEST], ci=True, workers=False, PARQUET_TEST_DATA=corpus)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


MISSING_MODULE = """
    import pytest
    pytest.importorskip("no_such_module_for_the_ci_rule")

    def test_never_runs():
        pass
"""


def test_ci_module_level_importorskip_is_a_collection_error(tmp_path):
    run = _plugin_run(tmp_path, MISSING_MODULE, ci=True)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "no_such_module_for_the_ci_rule" in out and "CI=true" in out
    assert 'pip install -e ".[dev]"' in out


def test_local_module_level_importorskip_skips(tmp_path):
    run = _plugin_run(tmp_path, MISSING_MODULE, ci=False, workers=False)
    out = run.stdout + run.stderr
    assert run.returncode in (0, 5), out   # 5: the only module skipped, so nothing was collected
    assert "1 skipped" in out and 'pip install -e ".[dev]"' in out


SKIP_IN_TEST = """
    import pytest

    def test_needs_something():
        pytest.skip("the thrift compiler not installed")

    def test_absent_package_behaviour():
        pytest.skip("gcsfs is installed")

    @pytest.mark.xfail(reason="known")
    def test_expected_failure():
        assert False
"""


def test_ci_skip_inside_a_test_fails_but_tolerated_reasons_and_xfail_do_not(tmp_path):
    run = _plugin_run(tmp_path, SKIP_IN_TEST, ci=True)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 skipped, 1 xfailed" in out
    assert "apt-get install thrift-compiler" in out


def test_ci_missing_java_fails_spark_tests(tmp_path):
    pytest.importorskip("pyspark")
    body = """
        def test_uses_spark(spark):
            assert spark is not None
    """
    run = _plugin_run(tmp_path, body, ci=True, plugins=("tests.conftest", "tests.spark.conftest"),
                      PATH=os.path.dirname(sys.executable))
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "no Java runtime" in out and "Java 17" in out
    local = _plugin_run(tmp_path, body, ci=False, plugins=("tests.conftest", "tests.spark.conftest"),
                        workers=False, PATH=os.path.dirname(sys.executable))
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout + local.stderr
    assert "Java 17" in local.stdout


def test_spark_fixture_users_get_the_spark_marker(tmp_path):
    pytest.importorskip("pyspark")
    (tmp_path / "test_probe.py").write_text(textwrap.dedent("""
        def test_uses_spark(pqcore_spark):
            pass

        def test_plain():
            pass
    """))
    run = _pytest(["-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), "-p", "tests.conftest",
                   "-p", "tests.spark.conftest", "--collect-only", "-m", "not spark",
                   str(tmp_path / "test_probe.py")], ci=False, workers=False)
    assert "test_plain" in run.stdout and "test_uses_spark" not in run.stdout, run.stdout + run.stderr
