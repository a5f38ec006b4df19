"""Shared test configuration: where the Apache conformance corpus lives, and the CI rule.

**The CI rule.** When ``CI`` is ``true`` / ``1`` / ``yes`` (``.ci/run`` sets it), a
skipped test is a failure: a missing corpus, Java, pyspark, Kartothek venv or
optional package would otherwise turn hundreds of tests into green skips and
pytest would still exit 0. The only skips CI tolerates are the ones in
``_CI_TOLERATED`` (a test that checks what happens when a package is *absent*
skips because it is installed, which is fine). Collection-time skips (a
module-level ``pytest.importorskip``) become collection errors. In CI, a
missing corpus also stops the run at session start, because some tests are
built from the corpus' file list and would vanish instead of skipping.

Locally a skip stays a skip, and its reason is extended with how to get the
missing piece (``_HOW_TO``), so the ``-ra`` summary says what to install.

``spark`` marker: every test using the session's ``spark`` fixture (directly or
through another fixture) gets it, so ``pytest -m "not spark and not slow"`` is
the fast subset. ``slow`` marker: the tests in ``_SLOW`` get it too (measured at
several seconds each); tests can also mark themselves.

**Scheduling** (pytest-xdist, ``-n 2 --dist loadgroup``; tests/_support/schedule.py):
the tests of the session's SparkSession form one group (one worker, one JVM); the Spark
tests that start their own JVMs (cluster, Connect, installed apps) a second one, run
beside it; the tests of the built docs site a third (``_SHARED_FIXTURES``: one build);
the other tests are handed out one by one, ``slow`` ones first.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

from tests._support.corpus import DEFAULT_CORPUS, corpus_dir
from tests._support.schedule import lay_out

# Hypothesis' per-example deadline is a timing assertion: on a loaded machine
# (CI shares 2 cores) it fails correct code. Tests that want a deadline set it.
settings.register_profile("parquet-core", deadline=None)
settings.load_profile("parquet-core")

_DEFAULT = DEFAULT_CORPUS
if "PARQUET_TEST_DATA" not in os.environ and _DEFAULT.is_dir():
    # some test modules read the variable itself: give them the default location too
    os.environ["PARQUET_TEST_DATA"] = str(_DEFAULT)

CORPUS_HOW_TO = (
    "the corpus is Apache parquet-testing: `git clone https://github.com/apache/parquet-testing` "
    "and set PARQUET_TEST_DATA=<clone>/data (default: ../shared/parquet-testing/data next to this checkout)"
)
JAVA_HOW_TO = ("Spark tests need Java 17: install a JDK 17 (e.g. `apt-get install openjdk-17-jdk-headless`) "
               "and put `java` on PATH or set JAVA_HOME")
KARTOTHEK_HOW_TO = ("build the Kartothek 5.3 venv as .ci/run does: "
                    "`bash tests/kartothek/build_kartothek_venv.sh .venv-kartothek && "
                    "export KARTOTHEK_VENV=$PWD/.venv-kartothek` (needs a Python 3.8-3.10)")
DEV_HOW_TO = "install the dev extras: `pip install -e \".[dev]\"`"

#: (pattern on the skip reason, how to get what is missing); first match wins.
_HOW_TO: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"kartothek venv|cannot import kartothek", re.I), KARTOTHEK_HOW_TO),
    (re.compile(r"kartothek fixtures|KARTOTHEK_SHARED|expected_reads", re.I),
     "the Kartothek fixtures come with the shared test data: set KARTOTHEK_SHARED to the folder "
     "holding store/ and expected_reads/"),
    (re.compile(r"xskipper", re.I), "set XSKIPPER_RESOURCES to the xskipper conformance resources folder"),
    (re.compile(r"parquet-testing|PARQUET_TEST_DATA|corpus", re.I), CORPUS_HOW_TO),
    (re.compile(r"\bjava\b|javac|JAVA_HOME", re.I), JAVA_HOW_TO),
    (re.compile(r"thrift compiler", re.I), "install the Thrift compiler: `apt-get install thrift-compiler`"),
    (re.compile(r"could not import|is not installed|pyspark", re.I), DEV_HOW_TO),
]

#: Skip reasons CI accepts: the test checks behaviour without a package that is installed.
_CI_TOLERATED = re.compile(r"\bis installed$")

#: Tests that take several seconds each (measured), beyond those marked in their own file:
#: node ids (with all their parameters), or a whole module ("path::").
_SLOW = (
    "tests/fuzz/test_fuzz_slice.py::test_fuzz_slice",
    "tests/kartothek/test_kartothek_cross_read.py::",
    "tests/check/test_check_corpus.py::test_corpus",   # pc.check of every corpus file at every level
    "tests/unit/column/test_nullable_levels.py::test_nullable_columns_match_pyarrow_and_the_page_by_page_path",
)

#: Fixtures that start (or need) the session's SparkSession.
_SPARK_FIXTURES = {"spark", "pqcore_spark", "ids_dataset", "pushdown_on", "ktk_spark"}

#: Session fixtures too costly to set up on both workers, and the group of the tests using
#: each (one worker, one setup): the docs site (``mkdocs build``, ~20 s; tests/docs/conftest.py)
_SHARED_FIXTURES = {"built_site": "docs-site"}


def ci_strict() -> bool:
    """True when running under CI (``CI`` is true/1/yes): a missing prerequisite fails."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def how_to(reason: str) -> str | None:
    """How to get what a skip *reason* says is missing, or None if it names nothing known."""
    if reason.startswith("got empty parameter set") and not corpus_dir().is_dir():
        return CORPUS_HOW_TO   # parametrize lists built from the corpus' file list
    for pattern, text in _HOW_TO:
        if pattern.search(reason):
            return text
    return None


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Path of the conformance corpus; skips the test when it is absent (fails under CI)."""
    d = corpus_dir()
    if not d.is_dir():
        pytest.skip(f"parquet-testing corpus not found at {d}")
    return d


def pytest_sessionstart(session: pytest.Session) -> None:
    if ci_strict() and not corpus_dir().is_dir():
        raise pytest.UsageError(
            f"CI=true: the parquet-testing corpus is missing (PARQUET_TEST_DATA={corpus_dir()}); "
            f"{CORPUS_HOW_TO}")


class _XdistGroupIds:
    """pytest-xdist's ``loadgroup`` marks a grouped test by renaming it (``id@group``) through
    ``item._nodeid``; pytest 9 reads a node's id from ``item._id`` instead, so the rename is
    lost and the groups spread over both workers (two SparkSessions).  Carry it over."""

    @pytest.hookimpl(trylast=True)   # after xdist's own hook
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        try:
            from _pytest.nodeid import NodeId
        except ImportError:          # pytest < 9: item._nodeid is the id itself
            return
        for item in items:
            renamed = getattr(item, "_nodeid", None)
            if isinstance(renamed, str) and "@" in renamed and str(item.nodeid) != renamed:
                item._id = NodeId.parse(renamed)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistGroupIds(), "parquet-core-xdist-group-ids")
        if not hasattr(config, "workerinput") and not os.environ.get("PYTHONHASHSEED"):
            # the workers must collect the same test ids, and an id made from a set's repr
            # follows string hashing: one hash seed for every worker (inherited from here;
            # still random per run, shown in the header for a replay)
            import random

            os.environ["PYTHONHASHSEED"] = str(random.randrange(1, 2**32))


def pytest_report_header(config: pytest.Config) -> str | None:
    seed = os.environ.get("PYTHONHASHSEED")
    return f"PYTHONHASHSEED={seed} (the xdist workers' string hashing)" if seed else None


def _deselect_quiet(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``quiet`` tests time ratios (the Spark floor) and are only meaningful with the machine to
    themselves: a plain run leaves them out (deselected, not skipped); ``.ci/run`` runs them
    afterwards, alone and on one worker, with ``PQC_QUIET_TESTS=1``."""
    if os.environ.get("PQC_QUIET_TESTS", "").strip().lower() in {"1", "true", "yes"}:
        return
    quiet = [item for item in items if item.get_closest_marker("quiet") is not None]
    if quiet:
        config.hook.pytest_deselected(items=quiet)
        items[:] = [item for item in items if item.get_closest_marker("quiet") is None]


@pytest.hookimpl(tryfirst=True)   # before pytest-xdist reads the xdist_group markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _deselect_quiet(config, items)
    # markers, the xdist groups and, on a worker, the slow tests first: tests/_support/schedule.py
    lay_out(items, slow=_SLOW, spark_fixtures=_SPARK_FIXTURES, worker=hasattr(config, "workerinput"),
            shared=_SHARED_FIXTURES)


def _skip_reason(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _explain(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Turn a skip into a failure under CI, or add the how-to to its reason locally."""
    reason = _skip_reason(report.longrepr)
    hint = how_to(reason)
    if ci_strict() and not _CI_TOLERATED.search(reason):
        report.outcome = "failed"
        report.longrepr = (f"CI=true: a prerequisite is missing, so this test would only skip: {reason}"
                           + (f"\nTo fix: {hint}" if hint else ""))
    elif hint and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, _ = report.longrepr
        report.longrepr = (path, line, f"Skipped: {reason} ({hint})")


# old-style wrappers (the reports are changed in place): they work on every pytest >= 7
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        _explain(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped:
        _explain(report)
