"""The exception hierarchy of parquet_core.

Every error raised because of the *bytes of a file* derives from
:class:`ParquetError`.  API misuse (a wrong argument type, an unknown option)
raises the ordinary :class:`TypeError` / :class:`ValueError` instead.

::

    ParquetError
    ├── ParquetFormatError        corrupt or malformed input, CRC mismatch
    ├── UnsupportedFeatureError   valid per the spec, not implemented here
    │   └── CodecUnavailableError a codec whose Python backend is missing
    ├── ParquetSchemaError        a bad schema, or data that does not match it
    └── ParquetEncryptionError    wrong or missing key, AAD / tag mismatch

Where an error happened (column path, row group, page ordinal, byte offset)
is attached with :meth:`BaseException.add_note` by :func:`add_context`, so
the message itself stays short and the location is always printed.
"""

from __future__ import annotations

__all__ = [
    "ParquetError",
    "ParquetFormatError",
    "UnsupportedFeatureError",
    "CodecUnavailableError",
    "ParquetSchemaError",
    "ParquetEncryptionError",
    "add_context",
]


class ParquetError(Exception):
    """Root of every error caused by the content of a Parquet file."""


class ParquetFormatError(ParquetError):
    """The input is corrupt, truncated or violates the format specification."""


class UnsupportedFeatureError(ParquetError):
    """The input is valid per the specification but uses something we lack."""


class CodecUnavailableError(UnsupportedFeatureError):
    """A compression codec whose backend package is not installed."""

    def __init__(self, codec: str, package: str | None) -> None:
        hint = f"; install the '{package}' package" if package else ""
        super().__init__(f"compression codec {codec} is not available{hint}")
        self.codec = codec
        self.package = package


class ParquetSchemaError(ParquetError):
    """The schema is invalid, or data does not match the schema."""


class ParquetEncryptionError(ParquetError):
    """A key is missing or wrong, or an authentication check failed."""


def add_context(exc: BaseException, **where: object) -> BaseException:
    """Attach a location note (``column=a.b, row_group=0, page=3``) to *exc*.

    Parameters
    ----------
    exc:
        The exception being propagated.
    **where:
        Location fields; ``None`` values are left out.

    Returns
    -------
    BaseException
        The same exception, for ``raise add_context(e, ...)`` chains.
    """
    parts = [f"{k.replace('_', ' ')}={v}" for k, v in where.items() if v is not None]
    if parts:
        exc.add_note("at " + ", ".join(parts))
    return exc
