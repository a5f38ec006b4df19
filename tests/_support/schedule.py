"""How the suite is laid out for pytest-xdist (``-n 2 --dist loadgroup``, the default
addopts); called by tests/conftest.py's collection hook, before xdist reads the groups.

* ``spark`` marker on every test using one of the session's Spark fixtures, ``slow`` on
  the listed ones (node ids, with all their parameters, or a whole module as ``path::``);
* the tests of the session's SparkSession form the group ``spark`` (one worker, one JVM);
  the other ``spark`` tests start JVMs of their own (a standalone cluster, Connect
  servers, installed apps) and form the group ``spark-apps``, run one at a time beside it;
* on a worker (whose order is the schedule's), the ungrouped ``slow`` tests go first.
  ``loadgroup`` hands ungrouped tests out one at a time in collection order: a long one
  handed out last keeps one worker busy while the other has nothing left.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest


def _listed(nodeid: str, listed: Iterable[str]) -> bool:
    return any(nodeid == s or nodeid.startswith(s + "[") or (s.endswith("::") and nodeid.startswith(s))
               for s in listed)


def lay_out(items: list[pytest.Item], *, slow: Iterable[str], spark_fixtures: set[str], worker: bool) -> None:
    """Mark and group *items* in place; on a *worker*, sort the ungrouped slow ones first."""
    slow = tuple(slow)
    for item in items:
        uses_session = bool(spark_fixtures.intersection(getattr(item, "fixturenames", ())))
        if uses_session:
            item.add_marker(pytest.mark.spark)
        if _listed(item.nodeid, slow):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark" if uses_session else "spark-apps"))
    if worker:
        # stable: the grouped tests keep their order, so a module's shared fixtures stay shared
        items.sort(key=lambda item: 0 if (item.get_closest_marker("slow") is not None
                                          and item.get_closest_marker("xdist_group") is None) else 1)
