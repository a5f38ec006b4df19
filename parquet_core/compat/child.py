"""The reader process of ``pqc compat``: ``python -m parquet_core.compat.child READER``.

``python -m parquet_core.compat.child --writer WRITER`` is the same loop for a writer
(:mod:`parquet_core.compat.writers`): each request also names the ``feature`` and the
``source`` (parquet_core's own feature file, read here into a pyarrow table), and the
answer ``{"values": {}}`` means the file was written.

Protocol (one JSON object per line): the child first writes
``{"version": ...}`` (or ``{"unavailable": why}``), then answers each request
``{"path": ..., "keys": ...}`` read from stdin with ``{"values": ...}``,
``{"error": first line}``, ``{"na": why}`` or ``{"memory": first line}``.
Anything the reader's library prints goes to stderr: stdout carries only the
protocol.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback


def _first_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def main(argv: list[str]) -> int:
    # keep the protocol channel for ourselves; the libraries' prints go to stderr
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj: dict) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    from parquet_core.compat.readers import NotApplicable, load
    writing = argv[0] == "--writer"
    if writing:
        from parquet_core.compat.writers import load_writer
        argv = argv[1:]
    try:
        reader = load_writer(argv[0]) if writing else load(argv[0])
        send({"version": str(reader.version())})
    except Exception as exc:  # noqa: BLE001 - any failure here makes the reader unavailable
        send({"unavailable": _first_line(exc)})
        return 0
    for line in sys.stdin:
        req = json.loads(line)
        start = time.perf_counter()
        try:
            if writing:
                import parquet_core as pc
                table = pc.read_table(req["source"]).to_arrow()
                reader.write(table, req["path"], req["feature"])
                reply: dict = {"values": {}}
            else:
                reply = {"values": reader.read(req["path"], req.get("keys"))}
        except NotApplicable as exc:
            reply = {"na": str(exc)}
        except MemoryError as exc:
            reply = {"memory": _first_line(exc) if str(exc) else "MemoryError"}
        except Exception as exc:  # noqa: BLE001 - a refusal is a verdict, not a failure
            reply = {"error": _first_line(exc)}
        except BaseException as exc:  # noqa: BLE001 - e.g. a Rust panic surfaced as pyo3's PanicException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            reply = {"crash": _first_line(exc)}
            if os.environ.get("PQC_COMPAT_TRACE"):
                traceback.print_exc()
        reply["seconds"] = round(time.perf_counter() - start, 4)
        try:
            send(reply)
        except (TypeError, ValueError) as exc:
            send({"error": f"values not serialisable: {exc}", "seconds": reply["seconds"]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
