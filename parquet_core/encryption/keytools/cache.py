"""Caches of KMS clients and key encryption keys, per access token, expiring.

Each access token owns an inner dict that lives for the configured lifetime
(seconds) from its creation; after that it is dropped whole and rebuilt on
the next use, so a revoked token or rotated master key is noticed at the
latest one lifetime later. A lifetime of 0 disables caching.
"""

from __future__ import annotations

import threading
import time

__all__ = ["TokenCache"]


class TokenCache:
    """``token -> {key: value}`` with per-token expiry."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, dict]] = {}

    def inner(self, token: str, lifetime: float) -> dict:
        """The live inner dict of *token* (a fresh one if it expired)."""
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(token)
            if entry is None or entry[0] <= now:
                entry = (now + max(float(lifetime), 0.0), {})
                if lifetime > 0:
                    self._entries[token] = entry
                else:
                    self._entries.pop(token, None)
            return entry[1]

    def remove_token(self, token: str) -> None:
        with self._lock:
            self._entries.pop(token, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
