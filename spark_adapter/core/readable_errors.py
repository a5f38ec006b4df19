"""Errors a user can read: the message, not a traceback of the adapter's internals.

Spark reports an exception raised in a Python data source's driver-side methods
(``schema()``, ``reader()``, ``writer()``, ``partitions()``) as an
``AnalysisException`` whose text is the worker's formatted traceback: with Spark's
defaults, ``[PYTHON_DATA_SOURCE_ERROR] Failed to create Python data source
instance: Traceback (most recent call last):`` followed by every frame between the
method and the ``raise``, the useful line last.  No source can change Spark's
wrapping, but it can choose the frames: :func:`readable` re-raises an error caused
by the user's input (a bad option, a missing path, an unreadable file: what
:data:`USER_ERRORS` lists, and every ``ParquetError``) with its traceback cut to
the one frame that re-raises it, so the text Spark shows is three lines of
traceback and the message.  With ``spark.sql.execution.pyspark.udf.hideTraceback.enabled``
set to ``true`` Spark drops the traceback too and the message follows the error
class on the first line (measured in docs/spark-deployment.md).

Anything else (a bug: ``AttributeError``, ``KeyError``, ...) keeps its full traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["USER_ERRORS", "is_user_error", "readable"]

F = TypeVar("F", bound=Callable[..., Any])

#: the exception types raised for bad input (options, paths, files), not for bugs
USER_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, NotImplementedError)


def is_user_error(exc: BaseException) -> bool:
    """Whether *exc* reports bad input: one of :data:`USER_ERRORS` or a ``ParquetError``
    (recognised by name, so this module imports nothing from the engine)."""
    if isinstance(exc, USER_ERRORS):
        return True
    return any(c.__name__ == "ParquetError" and c.__module__ == "parquet_core.errors" for c in type(exc).__mro__)


def readable(method: F) -> F:
    """Decorate a data source's driver-side method so that a user error leaves it with a
    one-frame traceback (the message, its notes and its type unchanged)."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except Exception as exc:
            if not is_user_error(exc):
                raise
            error = exc
        # raised outside the except block: no "During handling of the above exception"
        raise error.with_traceback(None) from None

    return wrapper  # type: ignore[return-value]
