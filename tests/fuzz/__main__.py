"""Command line: ``python -m tests.fuzz --mutants 100000 --seed 1 --workers 2 --out fuzz-findings/``.

See tests/fuzz/README.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.fuzz.harness import DEFAULT_MEMORY, Campaign, make_mutant, run_campaign
from tests.fuzz.seeds import all_seeds


def _progress(c: Campaign) -> None:
    rate = c.mutants / c.seconds if c.seconds else 0.0
    counts = ", ".join(f"{k}={v}" for k, v in sorted(c.outcomes.items()))
    print(f"[{c.seconds:7.0f} s] {c.mutants} mutants ({rate:.1f}/s): {counts}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description="Mutation-fuzz the parquet_core reader.")
    p.add_argument("--mutants", type=int, default=100_000, help="how many mutants (default 100000)")
    p.add_argument("--seed", type=int, default=1, help="campaign seed: mutant i is the same bytes for one seed")
    p.add_argument("--start", type=int, default=0, help="first mutant number (to resume or split a campaign)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--seconds", type=float, default=None, help="time budget: stop handing out mutants after it")
    p.add_argument("--timeout", type=float, default=10.0, help="CPU seconds per mutant (wall limit: twice that)")
    p.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY // 2**20, help="address-space limit per worker")
    p.add_argument("--max-seed-bytes", type=int, default=2 * 1024 * 1024, help="skip larger corpus files")
    p.add_argument("--out", default=None, help="folder for findings (mutant .parquet + .json)")
    p.add_argument("--replay", type=int, default=None, metavar="I",
                   help="write mutant I of --seed to --out (or print its mutations) and exit")
    args = p.parse_args(argv)

    seeds, why = all_seeds(args.max_seed_bytes)
    if why:
        print(f"note: {why}", file=sys.stderr)
    print(f"{len(seeds)} seed files", flush=True)
    if args.replay is not None:
        seed, data, muts = make_mutant(seeds, args.seed, args.replay)
        print(f"mutant {args.replay} of {seed.name}: {muts}")
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            target = Path(args.out) / f"replay-s{args.seed}-m{args.replay}.parquet"
            target.write_bytes(data)
            print(f"written to {target}")
        return 0
    camp = run_campaign(seeds, campaign_seed=args.seed, mutants=args.mutants, start=args.start,
                        workers=args.workers, timeout=args.timeout, memory=args.memory_mb * 2**20,
                        seconds=args.seconds, out=args.out, progress=_progress)
    print(camp.summary(), flush=True)
    return 1 if camp.findings else 0


if __name__ == "__main__":
    sys.exit(main())
