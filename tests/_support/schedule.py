"""How the suite is laid out for pytest-xdist (``-n 2 --dist loadgroup``, the default
addopts); called by tests/conftest.py's collection hook, before xdist reads the groups.

* ``spark`` marker on every test using one of the session's Spark fixtures, ``slow`` on
  the listed ones (node ids, with all their parameters, or a whole module as ``path::``);
* the tests of the session's SparkSession form the group ``spark`` (one worker, one JVM);
  the other ``spark`` tests start JVMs of their own (a standalone cluster, Connect
  servers, installed apps) and form the group ``spark-apps``, run one at a time beside it;
* the tests using one of the *shared* fixtures (too costly to set up on both workers,
  like the built docs site) form that fixture's group: one worker, one setup;
* on a worker (whose order is the schedule's), the ungrouped ``slow`` tests go first.
  ``loadgroup`` hands ungrouped tests out one at a time in collection order: a long one
  handed out last keeps one worker busy while the other has nothing left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest


def _listed(nodeid: str, listed: Iterable[str]) -> bool:
    return any(nodeid == s or nodeid.startswith(s + "[") or (s.endswith("::") and nodeid.startswith(s))
               for s in listed)


def lay_out(items: list[pytest.Item], *, slow: Iterable[str], spark_fixtures: set[str], worker: bool,
            shared: Mapping[str, str] | None = None) -> None:
    """Mark and group *items* in place; on a *worker*, sort the ungrouped slow ones first.
    *shared* maps a fixture to the group of the tests using it."""
    slow = tuple(slow)
    shared = shared or {}
    for item in items:
        names = getattr(item, "fixturenames", ())
        uses_session = bool(spark_fixtures.intersection(names))
        if uses_session:
            item.add_marker(pytest.mark.spark)
        if _listed(item.nodeid, slow):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark" if uses_session else "spark-apps"))
        else:
            group = next((shared[n] for n in names if n in shared), None)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
    if worker:
        # stable: the grouped tests keep their order, so a module's shared fixtures stay shared
        items.sort(key=lambda item: 0 if (item.get_closest_marker("slow") is not None
                                          and item.get_closest_marker("xdist_group") is None) else 1)
