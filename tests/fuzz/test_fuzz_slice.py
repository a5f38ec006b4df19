"""The CI slice of the fuzzer: a fixed, seeded run of 1,500 mutants.

Any outcome other than a correct read or a ``pc.ParquetError`` fails the test
with one line per finding, and so does a ``pqc_check`` that took more CPU than its
bound (``exercise.slow_check``: a few seconds plus 10x the mutant's reads) (seed file, mutations, operation, exception).  A
finding is reproduced with ``python -m tests.fuzz --seed 23 --replay N --out DIR``
(same ``--max-seed-bytes``); see tests/fuzz/README.md.
"""

from __future__ import annotations

import pytest

from tests.fuzz.harness import run_campaign
from tests.fuzz.seeds import corpus_seeds, regression_seeds, written_seeds

SLICE_SEED = 23
#: 1,500 since the exercise grew (``pc.check`` at three levels and ``pqc check --json`` per mutant):
#: 3,000 took ~220 s of a CI worker; the long campaign (tests/fuzz/README.md) is where scale lives
SLICE_MUTANTS = 1500
#: the slice keeps to small seeds: a few corpus files take seconds per read and would
#: crowd out everything else (the long campaign uses all files up to 2 MB)
SLICE_MAX_SEED_BYTES = 128 * 1024


def test_corpus_seeds_available() -> None:
    seeds, why = corpus_seeds(SLICE_MAX_SEED_BYTES)
    if why:
        pytest.skip(why + " (the slice runs on our own written files only)")
    assert seeds


def test_fuzz_slice() -> None:
    corpus, _ = corpus_seeds(SLICE_MAX_SEED_BYTES)
    seeds = corpus + written_seeds() + regression_seeds(SLICE_MAX_SEED_BYTES)
    camp = run_campaign(seeds, campaign_seed=SLICE_SEED, mutants=SLICE_MUTANTS, workers=2, timeout=10.0)
    print(camp.summary())
    assert camp.mutants == SLICE_MUTANTS
    if camp.findings:
        report = "\n".join(f.describe() for f in camp.findings)
        pytest.fail(f"{len(camp.findings)} fuzz finding(s) (replay with python -m tests.fuzz --seed {SLICE_SEED} "
                    f"--max-seed-bytes {SLICE_MAX_SEED_BYTES} --replay N --out DIR):\n{report}\n\n{camp.summary()}",
                    pytrace=False)
