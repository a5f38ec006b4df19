"""How the suite is laid out for pytest-xdist (``-n 2 --dist loadgroup``;
tests/_support/schedule.py, called by tests/conftest.py): the tests of the session's
SparkSession in one group, the Spark tests with their own JVMs in another, and the
ungrouped ``slow`` tests handed out first on a worker."""

from __future__ import annotations

import pytest

from tests._support.schedule import lay_out

SLOW = ("tests/fuzz/test_fuzz_slice.py::test_fuzz_slice",)
SPARK_FIXTURES = {"spark", "pqcore_spark"}


class _Item:
    """The little of ``pytest.Item`` the collection hook uses."""

    def __init__(self, nodeid: str, fixturenames: tuple[str, ...] = (), marks: tuple[str, ...] = ()) -> None:
        self.nodeid = nodeid
        self.fixturenames = fixturenames
        self.marks = [getattr(pytest.mark, m) for m in marks]

    def add_marker(self, mark) -> None:
        self.marks.append(mark)

    def get_closest_marker(self, name: str):
        found = [m for m in self.marks if m.name == name]
        return found[-1].mark if found else None

    def group(self) -> str | None:
        mark = self.get_closest_marker("xdist_group")
        return mark.args[0] if mark else None


def _items() -> list[_Item]:
    return [
        _Item("tests/a/test_a.py::test_quick"),
        _Item("tests/spark/test_s.py::test_uses_session", ("spark",)),
        _Item("tests/spark/test_s.py::test_slow_with_session", ("pqcore_spark",), ("slow",)),
        _Item("tests/spark/test_deploy.py::test_cluster", ("tmp_path",), ("spark", "slow")),
        _Item("tests/b/test_b.py::test_long", (), ("slow",)),
        _Item("tests/c/test_c.py::test_quick_too"),
        _Item("tests/fuzz/test_fuzz_slice.py::test_fuzz_slice"),   # slow through SLOW
    ]


def test_spark_tests_with_and_without_the_session_get_their_own_groups() -> None:
    items = _items()
    lay_out(items, slow=SLOW, spark_fixtures=SPARK_FIXTURES, worker=False)
    groups = {i.nodeid.rsplit("::", 1)[1]: i.group() for i in items}
    assert groups == {"test_quick": None, "test_uses_session": "spark", "test_slow_with_session": "spark",
                      "test_cluster": "spark-apps", "test_long": None, "test_quick_too": None,
                      "test_fuzz_slice": None}
    assert all(i.get_closest_marker("spark") for i in items if i.group())
    # outside a worker (``-n 0``) the order stays the collection's
    assert [i.nodeid for i in items] == [i.nodeid for i in _items()]


def test_a_worker_hands_out_the_ungrouped_slow_tests_first() -> None:
    items = _items()
    lay_out(items, slow=SLOW, spark_fixtures=SPARK_FIXTURES, worker=True)
    assert [i.nodeid.rsplit("::", 1)[1] for i in items] == [
        "test_long", "test_fuzz_slice",                                   # ungrouped and slow, in order
        "test_quick", "test_uses_session", "test_slow_with_session",      # the rest, in order
        "test_cluster", "test_quick_too"]


def test_the_users_of_a_shared_fixture_form_its_group() -> None:
    """A costly session fixture (the built docs site) is set up once: its tests share a worker."""
    items = [_Item("tests/docs/test_build.py::test_pages", ("built_site",)),
             _Item("tests/docs/test_browser.py::test_search", ("browser", "built_site"), ("slow",)),
             _Item("tests/docs/test_examples.py::test_page"),
             _Item("tests/spark/test_s.py::test_uses_both", ("spark", "built_site"))]
    lay_out(items, slow=SLOW, spark_fixtures=SPARK_FIXTURES, worker=True, shared={"built_site": "docs-site"})
    assert {i.nodeid.rsplit("::", 1)[1]: i.group() for i in items} == {
        "test_pages": "docs-site", "test_search": "docs-site", "test_page": None,
        "test_uses_both": "spark"}     # the session's SparkSession decides first
    # grouped, so not among the slow tests handed out first: the order stays the collection's
    assert [i.nodeid.rsplit("::", 1)[1] for i in items] == ["test_pages", "test_search", "test_page",
                                                            "test_uses_both"]
