"""Reader modules that misbehave on purpose, for the runner's crash / timeout / memory tests.

Each is loaded by its dotted name (``tests.compat.fake_readers:...`` is not a module
path, so each behaviour is a module-level function picked by the file name)."""

from __future__ import annotations

import os
import time
from typing import Any


def version() -> str:
    # an interpreter wrapper (the --python tests) sets it: the version shows which interpreter ran
    return os.environ.get("PQC_FAKE_READER_VERSION", "0")


def read(path: str, keys: Any) -> dict:
    name = os.path.basename(path)
    if "sleep" in name:
        time.sleep(60)
    if "exit" in name:
        os._exit(3)
    if "memory" in name:
        return {"v": [len(bytearray(8 << 30))]}    # beyond the address-space limit
    if "refuse" in name:
        raise ValueError("no such thing\nsecond line")
    return {"v": [1, 2]}
