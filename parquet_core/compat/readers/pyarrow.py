"""pyarrow.parquet (Arrow C++): ``pq.read_table``; encrypted files through its ``CryptoFactory`` and a
test KMS client (:mod:`parquet_core.compat.kms`) when written with one, else n/a (pyarrow takes
no explicit keys)."""

from __future__ import annotations

from typing import Any

from parquet_core.compat.canonical import from_arrow
from parquet_core.compat.readers import NotApplicable


def version() -> str:
    import pyarrow
    return pyarrow.__version__


def read(path: str, keys: dict[str, Any] | None) -> dict[str, list]:
    import pyarrow.parquet as pq
    if keys and "kms" in keys:
        import pyarrow.parquet.encryption as pe

        from parquet_core.compat.kms import arrow_kms_class
        kms = arrow_kms_class()
        factory = pe.CryptoFactory(lambda config: kms(config))
        props = factory.file_decryption_properties(pe.KmsConnectionConfig(custom_kms_conf=keys["kms"]))
        # ParquetFile: pyarrow 15's read_table (the dataset path) does not hand the properties on
        return from_arrow(pq.ParquetFile(path, decryption_properties=props).read())
    if keys:
        raise NotApplicable("pyarrow takes keys only through a KMS client (CryptoFactory)")
    return from_arrow(pq.read_table(path))
