"""Run mutants in long-lived worker processes with time and memory limits.

Layout::

    parent                                   worker k (spawned, one per --workers)
    ------                                   --------
    seeds -> files in a temp dir   ------>   loads the seeds, sets RLIMIT_AS
    sends mutant ids               ------>   rebuilds the mutant from (campaign seed, id),
                                             arms a CPU-time alarm (SIGPROF kills it),
                                             writes it to its own temp file, exercises it
    waits with a wall deadline     <------   (id, outcome, details)
    deadline passed: kill, restart, record a "timeout"
    worker died: restart, record a "crash" (or "timeout" when SIGPROF killed it)

Mutants are rebuilt from their number, never shipped: the parent rebuilds
one only to save a finding.  ``mutant_rng(seed, i)`` and ``seed_index`` make
mutant ``i`` of campaign ``seed`` the same bytes everywhere, so a finding is
reproduced with ``python -m tests.fuzz --replay``.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
import random
import resource
import signal
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable

from tests.fuzz.mutate import mutate
from tests.fuzz.seeds import Seed

__all__ = ["Campaign", "Finding", "run_campaign", "make_mutant", "exercise_isolated", "FINDING_KINDS"]

FINDING_KINDS = ("exception", "memory", "inconsistent", "timeout", "crash")
DEFAULT_MEMORY = 2 * 1024 ** 3


def seed_weights(seeds: list[Seed]) -> list[float]:
    """How often each seed is picked: big files cost seconds per mutant, so they are picked less."""
    return [1.0 / (1.0 + len(s.data) / 100_000) for s in seeds]


def seed_index(campaign_seed: int, i: int, weights: list[float]) -> int:
    """Which seed file mutant ``i`` starts from."""
    return random.Random(f"{campaign_seed}:{i}:seed").choices(range(len(weights)), weights)[0]


def mutant_rng(campaign_seed: int, i: int) -> random.Random:
    return random.Random(f"{campaign_seed}:{i}:mutate")


def make_mutant(seeds: list[Seed], campaign_seed: int, i: int) -> tuple[Seed, bytes, list[dict[str, str]]]:
    """Mutant ``i`` of a campaign: its seed, its bytes and the mutations applied."""
    seed = seeds[seed_index(campaign_seed, i, seed_weights(seeds))]
    data, ops = mutate(seed.data, mutant_rng(campaign_seed, i))
    return seed, data, ops


@dataclass
class Finding:
    """One mutant whose outcome was neither a correct read nor a ParquetError."""

    mutant: int
    kind: str
    seed: str
    mutations: list[dict[str, str]]
    details: dict[str, Any]

    @property
    def signature(self) -> str:
        """What makes two findings the same bug, roughly: kind, exception type and location."""
        d = self.details
        return f"{self.kind} {d.get('exc_type', '')} at {d.get('where', '')} in {d.get('op', '')}"

    def describe(self) -> str:
        d = self.details
        muts = "; ".join(f"{m['mutator']}: {m['op']}" for m in self.mutations)
        return (f"mutant {self.mutant} of {self.seed} [{muts}]\n"
                f"    {self.kind} in {d.get('op')}: {d.get('exc_type')}: {d.get('message')}\n"
                f"    at {d.get('where')}")


@dataclass
class Campaign:
    """Counts and findings of one run."""

    seed: int
    mutants: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        rate = self.mutants / self.seconds if self.seconds else 0.0
        lines = [f"{self.mutants} mutants in {self.seconds:.1f} s ({rate:.1f}/s), campaign seed {self.seed}"]
        for k in sorted(self.outcomes):
            lines.append(f"  {k:14s} {self.outcomes[k]}")
        sigs: dict[str, list[Finding]] = {}
        for f in self.findings:
            sigs.setdefault(f.signature, []).append(f)
        if sigs:
            lines.append(f"{len(self.findings)} finding(s), {len(sigs)} distinct:")
            for sig, fs in sorted(sigs.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"  [{len(fs)}x] {sig}")
                lines.append("    e.g. " + fs[0].describe().replace("\n", "\n    "))
        return "\n".join(lines)


# -- worker side --------------------------------------------------------------------

def _worker(conn: Connection, seed_files: list[tuple[str, str]], campaign_seed: int, cpu_seconds: float,
            memory: int, tmpdir: str, ident: int) -> None:
    """Worker loop: receive mutant numbers, answer (number, outcome, details); None stops it."""
    warnings.simplefilter("ignore")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from tests.fuzz.exercise import exercise, probe_of

    seeds = [Seed(name, Path(p).read_bytes()) for name, p in seed_files]
    probes: dict[int, Any] = {}
    weights = seed_weights(seeds)
    path = os.path.join(tmpdir, f"mutant-{ident}-{os.getpid()}.parquet")
    while True:
        i = conn.recv()
        if i is None:
            return
        k = seed_index(campaign_seed, i, weights)
        if k not in probes:
            probes[k] = probe_of(seeds[k].data)
        seed, data, muts = make_mutant(seeds, campaign_seed, i)
        with open(path, "wb") as fh:
            fh.write(data)
        # a per-mutant CPU budget: SIGPROF's default action ends the worker, the parent sees it
        signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
        try:
            outcome, details = exercise(data, path, probes[k])
        except MemoryError as exc:  # raised outside an operation (building the report, say)
            outcome, details = "memory", {"op": "harness", "exc_type": "MemoryError", "message": str(exc)}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        # a finding carries its bytes: the parent must save what was read, even if the code changed since
        conn.send((i, outcome, details, muts, data if outcome in FINDING_KINDS else None))


def _isolated(conn: Connection, path: str, probe: Any, cpu_seconds: float, memory: int) -> None:
    warnings.simplefilter("ignore")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from tests.fuzz.exercise import exercise

    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    data = Path(path).read_bytes()
    try:
        conn.send(exercise(data, path, probe))
    except MemoryError as exc:
        conn.send(("memory", {"op": "harness", "exc_type": "MemoryError", "message": str(exc)}))


def exercise_isolated(path: str, probe: Any = None, *, timeout: float = 10.0,
                      memory: int = DEFAULT_MEMORY) -> tuple[str, dict[str, Any]]:
    """:func:`tests.fuzz.exercise.exercise` on one file, in a child with the fuzzer's limits.

    The child is forked from the suite's fork server (``tests/_support/forkserver.py``),
    which imported :mod:`tests.fuzz.exercise` once: a spawned child started an interpreter
    and imported parquet-core for each file (~0.7 s of CPU)."""
    from tests._support import forkserver

    ctx = forkserver.context()
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_isolated, args=(child, path, probe, timeout, memory), daemon=True)
    proc.start()
    child.close()
    try:
        if parent.poll(10 * timeout + 30):
            try:
                return parent.recv()  # type: ignore[no-any-return]
            except EOFError:
                pass
            proc.join(5)
            kind = "timeout" if proc.exitcode == -signal.SIGPROF else "crash"
            return kind, {"op": "?", "exc_type": f"exit code {proc.exitcode}",
                          "message": _exit_text(proc.exitcode, timeout)}
        return "timeout", {"op": "?", "exc_type": "wall-clock deadline", "message": "no answer"}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()


def _runnable(pid: int) -> bool:
    """True when the process is running or waiting for a CPU (state R): starved, not stuck."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "R"
    except (OSError, IndexError):
        return False


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), 0.0 when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


@dataclass
class _Slot:
    ident: int
    proc: Any = None
    conn: Any = None
    current: int | None = None
    deadline: float = 0.0
    hard_deadline: float = 0.0
    cpu: float = 0.0   # the worker's CPU time at the last check


# -- parent side -------------------------------------------------------------------

def run_campaign(seeds: list[Seed], *, campaign_seed: int = 1, mutants: int = 1000, start: int = 0,
                 workers: int = 2, timeout: float = 10.0, memory: int = DEFAULT_MEMORY,
                 seconds: float | None = None, out: str | None = None, max_saved_per_signature: int = 5,
                 progress: Callable[[Campaign], None] | None = None, progress_every: float = 10.0) -> Campaign:
    """Run mutants ``start .. start+mutants-1`` of campaign ``campaign_seed``.

    ``timeout`` is the per-mutant CPU budget (SIGPROF in the worker).  The
    parent's wall-clock deadline is ``timeout + 5`` s, extended while the worker
    still makes CPU progress (a shared, loaded machine), up to ``10 * timeout + 30``.  ``seconds`` stops handing out mutants after
    that long.  With ``out``, each finding's bytes and a JSON description are
    saved there (at most ``max_saved_per_signature`` per distinct signature).
    """
    camp = Campaign(campaign_seed)
    ctx = mp.get_context("spawn")
    t0 = time.monotonic()
    saved: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="pqfuzz-") as tmp:
        seed_files = []
        for j, s in enumerate(seeds):
            p = os.path.join(tmp, f"seed-{j}.parquet")
            Path(p).write_bytes(s.data)
            seed_files.append((s.name, p))

        def launch(slot: _Slot) -> None:
            parent, child = ctx.Pipe()
            slot.proc = ctx.Process(target=_worker, args=(child, seed_files, campaign_seed, timeout, memory, tmp,
                                                           slot.ident), daemon=True)
            slot.proc.start()
            child.close()
            slot.conn, slot.current = parent, None

        def record(i: int, kind: str, details: dict[str, Any], muts: list[dict[str, str]] | None,
                   data: bytes | None = None) -> None:
            camp.mutants += 1
            camp.outcomes[kind] = camp.outcomes.get(kind, 0) + 1
            if kind not in FINDING_KINDS:
                return
            seed, rebuilt_data, rebuilt = make_mutant(seeds, campaign_seed, i)
            data = rebuilt_data if data is None else data
            f = Finding(i, kind, seed.name, muts if muts is not None else rebuilt, details)
            camp.findings.append(f)
            if out and saved.get(f.signature, 0) < max_saved_per_signature:
                saved[f.signature] = saved.get(f.signature, 0) + 1
                _save(out, f, data, campaign_seed)

        def restart(slot: _Slot) -> None:
            slot.proc.kill()
            slot.proc.join()
            slot.conn.close()
            launch(slot)

        slots = [_Slot(k) for k in range(max(1, workers))]
        for slot in slots:
            launch(slot)
        todo = iter(range(start, start + mutants))
        exhausted = False
        last_report = t0
        try:
            while True:
                now = time.monotonic()
                if seconds is not None and now - t0 >= seconds:
                    exhausted = True
                for slot in slots:
                    if slot.current is None and not exhausted:
                        nxt = next(todo, None)
                        if nxt is None:
                            exhausted = True
                            break
                        slot.conn.send(nxt)
                        slot.current, slot.deadline = nxt, now + timeout + 5
                        slot.hard_deadline, slot.cpu = now + 10 * timeout + 30, _cpu_seconds(slot.proc.pid)
                busy = [s for s in slots if s.current is not None]
                if not busy:
                    break
                wait_for = max(0.0, min(s.deadline for s in busy) - time.monotonic())
                ready = wait([s.conn for s in busy], timeout=min(wait_for, 1.0))
                for slot in busy:
                    if slot.conn in ready:
                        try:
                            i, kind, details, muts, data = slot.conn.recv()
                        except (EOFError, OSError):
                            slot.proc.join(5)
                            code = slot.proc.exitcode
                            kind = "timeout" if code == -signal.SIGPROF else "crash"
                            record(slot.current, kind, {"op": "?", "exc_type": f"exit code {code}",
                                                        "message": _exit_text(code, timeout), "where": "-"}, None)
                            restart(slot)
                            continue
                        slot.current = None
                        record(i, kind, details, muts, data)
                    elif time.monotonic() > slot.deadline:
                        # The CPU limit (SIGPROF) catches busy loops.  Past the wall deadline, a worker
                        # still burning CPU is only slowed by a loaded machine: give it more time, up
                        # to a hard limit; one that stopped using CPU is stuck.
                        cpu = _cpu_seconds(slot.proc.pid)
                        # a niced worker on a busy machine may get almost no CPU for a while: runnable
                        # (state R) counts as progress, a sleeping one (a FIFO, a lock) does not
                        progressing = cpu - slot.cpu > 0.05 or _runnable(slot.proc.pid)
                        slot.cpu = cpu
                        if progressing and time.monotonic() < slot.hard_deadline:
                            slot.deadline = time.monotonic() + timeout
                            continue
                        record(slot.current, "timeout", {"op": "?", "exc_type": "wall-clock deadline",
                                                         "message": "no answer and no CPU progress" if not progressing
                                                         else f"no answer in {10 * timeout + 30:.0f} s",
                                                         "where": "-"}, None)
                        restart(slot)
                if progress is not None and time.monotonic() - last_report >= progress_every:
                    last_report = time.monotonic()
                    camp.seconds = last_report - t0
                    progress(camp)
        finally:
            for slot in slots:
                try:
                    slot.conn.send(None)
                except (OSError, ValueError):
                    pass
            for slot in slots:
                slot.proc.join(2)
                if slot.proc.is_alive():
                    slot.proc.kill()
                    slot.proc.join()
    camp.seconds = time.monotonic() - t0
    return camp


def _exit_text(code: int | None, timeout: float) -> str:
    if code == -signal.SIGPROF:
        return f"CPU time over {timeout:.0f} s (SIGPROF)"
    if code is not None and code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"worker exited with status {code}"


def _save(out: str, f: Finding, data: bytes, campaign_seed: int) -> None:
    base = Path(out)
    base.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(f.signature.encode()).hexdigest()[:8]
    stem = f"{f.kind}-{digest}-s{campaign_seed}-m{f.mutant}"
    (base / f"{stem}.parquet").write_bytes(data)
    desc = {"campaign_seed": campaign_seed, "mutant": f.mutant, "kind": f.kind, "seed_file": f.seed,
            "mutations": f.mutations, "signature": f.signature, **f.details}
    (base / f"{stem}.json").write_text(json.dumps(desc, indent=2, default=str) + "\n")
