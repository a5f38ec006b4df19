"""``pc.ParquetFile``: the file layer's ParquetFile with the validator behind ``strict=True``."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from parquet_core.file import reader

if TYPE_CHECKING:
    from parquet_core.encryption.properties import FileDecryptionProperties
    from parquet_core.file.source import RandomAccessSource

__all__ = ["ParquetFile", "strict_validate"]


def strict_validate(source: RandomAccessSource, level: str, decryption: FileDecryptionProperties | None) -> None:
    """The check behind ``strict=True`` (a :class:`~parquet_core.file.reader.StrictValidator`):
    ``parquet_core.validation.strict_validate``, imported when first asked for."""
    import_module("parquet_core.validation").strict_validate(source, level, decryption)


class ParquetFile(reader.ParquetFile):
    # the validator is named here, in the class body; nothing writes it later
    strict_validator = staticmethod(strict_validate)


# the file layer's documentation is this class's (help(pc.ParquetFile), pyarrow's users)
ParquetFile.__doc__ = reader.ParquetFile.__doc__
ParquetFile.__module__ = "parquet_core"
