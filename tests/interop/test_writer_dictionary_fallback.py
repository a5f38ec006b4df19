"""Where the dictionary stops: checked against a plain-Python model of the rule.

The writer numbers dictionary entries in order of first appearance and keeps
the longest prefix of the values whose distinct entries fit
``dictionary_pagesize_limit`` (PLAIN bytes: 4 + length per byte array, the
width otherwise); from the first value of the first entry that does not fit,
the chunk falls back.  The model below walks the values one at a time with a
Python dict, independent of the writer's vectorised prefix search.  The file
is read back by pyarrow and the page headers by our thrift decoder.
"""

from __future__ import annotations

import numpy as np
import pytest

import parquet_core as pc
from parquet_core.constants import Encoding, PageType
from tests.interop.writer_cases import page_headers

pq = pytest.importorskip("pyarrow.parquet")


def _model_cutoff(values: list, cost) -> tuple[int, int]:
    """(entries kept, values covered) by the first-appearance rule."""
    seen: dict = {}
    size = 0
    for i, v in enumerate(values):
        if v not in seen:
            if size + cost(v) > LIMIT:
                return len(seen), i
            seen[v] = len(seen)
            size += cost(v)
    return len(seen), len(values)


LIMIT = 4096


def _shapes(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    late = np.concatenate([rng.integers(0, 20, int(n * 0.9)), rng.integers(0, 10**12, n - int(n * 0.9))])
    return {
        "all_distinct": rng.permutation(n).astype(np.int64) * 7919,
        "low_cardinality": rng.integers(0, 50, n),
        "late_explosion": late,          # few values, then distinct ones at 90 %: jumps then overflows
        "slow_growth": np.sqrt(np.arange(n)).astype(np.int64) * 31 + rng.integers(0, 3, n),
        "exactly_fits": np.tile(np.arange(LIMIT // 8), n // (LIMIT // 8) + 1)[:n],
    }


@pytest.mark.parametrize("shape", ["all_distinct", "low_cardinality", "late_explosion", "slow_growth",
                                   "exactly_fits"])
@pytest.mark.parametrize("n", [1000, 20_000])
def test_int64_cutoff_matches_model(tmp_path, shape, n):
    values = _shapes(np.random.default_rng(n), n)[shape]
    _check(tmp_path, values, [int(v) for v in values], lambda v: 8)


@pytest.mark.parametrize("n", [3000, 30_000])
def test_string_cutoff_matches_model(tmp_path, n):
    rng = np.random.default_rng(n)
    words = [f"w{int(k)}" * int(r) for k, r in zip(rng.integers(0, n, n), rng.integers(1, 4, n))]
    _check(tmp_path, np.array(words, dtype=object), words, lambda v: 4 + len(v.encode()))


def _check(tmp_path, column, as_list, cost) -> None:
    path = tmp_path / "d.parquet"
    pc.write_table({"x": column}, path, dictionary_pagesize_limit=LIMIT, data_page_size=1024,
                   compression="none")
    kept, covered = _model_cutoff(as_list, cost)
    headers = page_headers(path, 0, 0)
    dict_pages = [h for h in headers if h.type == PageType.DICTIONARY_PAGE]
    data = [h for h in headers if h.type != PageType.DICTIONARY_PAGE]
    in_dict = sum(h.data_page_header.num_values for h in data
                  if h.data_page_header.encoding in (Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY))
    if kept == 0:
        assert not dict_pages
    else:
        assert [h.dictionary_page_header.num_values for h in dict_pages] == [kept]
    assert in_dict == (covered if kept else 0)
    got = pq.read_table(path).column("x").to_pylist()
    assert got == as_list
