"""Re-run the dataset kill-and-race campaign of issue 29 at many random points, and count.

    python -m benchmarks.robustness_campaign [--kills 40] [--races 5] [--seed 1] [--memory-stride 1]

Not part of the test suite (minutes of CPU; run it with ``nice -n 19``).  It drives the
helpers of ``tests/dataset/test_dataset_write_atomic.py`` (the same two dataset versions, A
of 300 rows and B of 500 rows, written over each other with ``delete_matching``):

* local disk: a writer subprocess writing B, A, B, ... is SIGKILLed after a random delay
  (uniform 0-0.5 s after it is ready), ``--kills`` times; after each kill the dataset is
  read (through ``_metadata``-less planning, the markers) and must be exactly A or B;
* ``memory://``: a file system that fails for good after its n-th change, for every n
  (every ``--memory-stride``-th) a whole write makes, with and without a ``_metadata``;
* races: two writer subprocesses (local) and two writer threads (``memory://``) with a
  reader meanwhile, ``--races`` times each; and two ``existing_data_behavior="error"``
  writers into an empty folder (one must win, the other fail).

The mutation fuzzer has its own command (``python -m tests.fuzz``, see tests/fuzz/README.md);
the encryption tamper checks are ``tests/encryption/test_decrypt_tamper.py``.  Prints one
line per figure; exit status 1 when any read saw something other than one whole version.
"""

from __future__ import annotations

import argparse
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import parquet_core as pc
from tests.dataset import test_dataset_write_atomic as atomic


def local_kills(kills: int, seed: int) -> Counter:
    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="pq-kill-"))
    seen: Counter = Counter()
    try:
        root = str(tmp / "ds")
        pc.write_to_dataset(atomic.version("A"), root, **atomic.WRITE)
        for _ in range(kills):
            proc = atomic.start_writer(tmp, root, "BA" * 20)
            atomic.wait_ready(proc)
            time.sleep(rng.uniform(0.0, 0.5))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            try:
                seen[atomic.read_version(root)] += 1
            except AssertionError:
                seen["NOT ONE VERSION"] += 1
        pc.write_to_dataset(atomic.version("B"), root, **atomic.WRITE)
        seen["litter left after the next write"] = len(atomic.internal_files(root))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return seen


def memory_kills(stride: int) -> Counter:
    """Every kill point of a delete_matching write on memory://, with and without _metadata."""
    out: Counter = Counter()
    for with_metadata in (False, True):
        points = [0]
        real = atomic.DyingMemoryFS.__init__

        def counting_init(self, after=None, *a, real=real, points=points, **k):    # noqa: ANN001
            real(self, after, *a, **k)       # counts the kill points
            if after is not None:
                points[0] += 1

        atomic.DyingMemoryFS.__init__ = counting_init    # type: ignore[method-assign]
        try:
            atomic.kill_memory_writer(with_metadata, stride)
            out["_metadata" if with_metadata else "plain"] += points[0]
        except AssertionError as exc:
            out[f"FAILED ({'_metadata' if with_metadata else 'plain'}): {exc}"] += 1
        finally:
            atomic.DyingMemoryFS.__init__ = real          # type: ignore[method-assign]
    return out


def races(n: int) -> Counter:
    out: Counter = Counter()
    for _ in range(n):
        tmp = Path(tempfile.mkdtemp(prefix="pq-race-"))
        try:
            for name, fn in (("local delete_matching", lambda tmp=tmp: atomic.test_racing_local_writers_and_a_reader(tmp / "a")),
                             ("local error", lambda tmp=tmp: atomic.test_racing_error_writers_one_wins(tmp / "b")),
                             ("memory threads", atomic.test_memory_racing_threads)):
                (tmp / "a").mkdir(exist_ok=True)
                (tmp / "b").mkdir(exist_ok=True)
                try:
                    fn()
                    out[f"{name}: one version"] += 1
                except AssertionError as exc:
                    out[f"{name}: FAILED {str(exc)[:200]}"] += 1
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.robustness_campaign")
    p.add_argument("--kills", type=int, default=40, help="SIGKILLs of local writers")
    p.add_argument("--races", type=int, default=5, help="rounds of each race")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--memory-stride", type=int, default=1, help="every n-th kill point on memory://")
    args = p.parse_args(argv)
    bad = 0
    t0 = time.time()
    got = local_kills(args.kills, args.seed)
    print(f"local SIGKILLs: {args.kills}; versions read after each: {dict(got)}", flush=True)
    bad += got["NOT ONE VERSION"] + got["litter left after the next write"]
    got = memory_kills(args.memory_stride)
    print(f"memory:// kill points (each read: one version): {dict(got)}", flush=True)
    bad += sum(v for k, v in got.items() if k.startswith("FAILED"))
    got = races(args.races)
    print(f"races: {dict(got)}", flush=True)
    bad += sum(v for k, v in got.items() if "FAILED" in k)
    print(f"{'no' if not bad else bad} failures in {time.time() - t0:.0f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
