"""Our error classes also derive from the builtins pyarrow raises in their place, so
``except (ValueError, OSError)`` written for pyarrow still catches them."""

from __future__ import annotations

import io

import pytest

import parquet_core as pc
from parquet_core.errors import (
    CodecUnavailableError, ParquetChecksumError, ParquetEncryptionError, ParquetError, ParquetFormatError,
    ParquetSchemaError, UnsupportedFeatureError,
)


@pytest.mark.parametrize("cls, builtin", [
    (ParquetFormatError, ValueError), (ParquetSchemaError, ValueError), (ParquetChecksumError, OSError),
    (ParquetChecksumError, ValueError), (ParquetEncryptionError, OSError),
    (UnsupportedFeatureError, NotImplementedError), (CodecUnavailableError, NotImplementedError),
])
def test_bases(cls, builtin):
    assert issubclass(cls, ParquetError) and issubclass(cls, builtin)


def test_oserror_subclasses_keep_their_message_whole():
    # OSError reads two arguments as (errno, strerror): ours keep the text
    err = ParquetEncryptionError("wrong key for column", "a.b")
    assert str(err) == "wrong key for column a.b" and err.errno is None
    assert str(ParquetChecksumError("page CRC mismatch")) == "page CRC mismatch"


def test_not_a_parquet_file_is_a_value_error():
    with pytest.raises(ValueError) as info:
        pc.read_table(io.BytesIO(b"PAR1 not really a parquet file PAR1"))
    assert isinstance(info.value, ParquetFormatError)
