"""Commit messages of a Spark write: the driver's commit/abort get one per task."""

from __future__ import annotations

from typing import Any, TypeVar

M = TypeVar("M")


def own_messages(messages: list[Any], kind: type[M], source: str) -> list[M]:
    """The tasks' messages of *kind* (None: a task that sent none); another writer's
    message is refused with ``TypeError`` naming *source*."""
    out: list[M] = []
    for m in messages:
        if m is None:
            continue
        if not isinstance(m, kind):
            raise TypeError(f"{source}: a commit message from another writer ({type(m).__name__})")
        out.append(m)
    return out
