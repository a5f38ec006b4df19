"""Tunables passed explicitly through the layers, as frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ReaderOptions"]


@dataclass(frozen=True, slots=True)
class ReaderOptions:
    """How files are read.

    Parameters
    ----------
    page_checksum_verification:
        Verify each page's CRC-32 when the writer stored one (default True;
        the name matches ``pyarrow.parquet``'s option, our default is safer).
    """

    page_checksum_verification: bool = True
