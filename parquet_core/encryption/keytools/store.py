"""External key material: ``_KEY_MATERIAL_FOR_<file name>.json`` beside the file.

The file is one JSON object mapping a key's id in the file (``footerKey``,
``columnKey0``, ``columnKey1``, ...) to its key material *as a JSON string*
(so the values are strings holding JSON, as parquet-java writes them).
Keeping the material outside the Parquet file lets master keys be rotated
without rewriting data.
"""

from __future__ import annotations

import json
import os
import tempfile

from parquet_core.errors import ParquetEncryptionError, quoted

__all__ = ["KEY_MATERIAL_FILE_PREFIX", "KEY_MATERIAL_FILE_SUFFIX", "KeyMaterialStore",
           "key_material_path"]

KEY_MATERIAL_FILE_PREFIX = "_KEY_MATERIAL_FOR_"
KEY_MATERIAL_FILE_SUFFIX = ".json"
#: A larger key material file is refused rather than read into memory.
MAX_KEY_MATERIAL_FILE_SIZE = 16 << 20


def key_material_path(parquet_file_path: str | os.PathLike) -> str:
    """Where the key material of *parquet_file_path* lives."""
    path = os.fspath(parquet_file_path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    directory, name = os.path.split(path)
    if not name:
        raise ValueError(f"parquet_file_path {path!r} names a directory, not a file")
    return os.path.join(directory, KEY_MATERIAL_FILE_PREFIX + name + KEY_MATERIAL_FILE_SUFFIX)


class KeyMaterialStore:
    """The key material of one Parquet file, kept in memory until saved."""

    def __init__(self, parquet_file_path: str | os.PathLike) -> None:
        self.path = key_material_path(parquet_file_path)
        self._materials: dict[str, str] | None = None

    # -- writing -----------------------------------------------------------
    def add(self, key_id_in_file: str, key_material: str) -> None:
        if self._materials is None:
            self._materials = {}
        self._materials[key_id_in_file] = key_material

    def save(self, parquet_file_path: str | os.PathLike | None = None) -> str:
        """Write the JSON atomically (temp file + rename); return its path.

        With *parquet_file_path* the file goes next to that path instead of
        the one given at construction (the path the writer really wrote).
        """
        target = self.path if parquet_file_path is None else key_material_path(parquet_file_path)
        text = json.dumps(self._materials or {}, separators=(",", ":"))
        directory = os.path.dirname(target) or "."
        fd, tmp = tempfile.mkstemp(prefix=".tmp_key_material_", suffix=".json", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return target

    # -- reading -----------------------------------------------------------
    def _load(self) -> dict[str, str]:
        if self._materials is not None:
            return self._materials
        try:
            with open(self.path, "rb") as src:
                raw = src.read(MAX_KEY_MATERIAL_FILE_SIZE + 1)
        except FileNotFoundError:
            raise ParquetEncryptionError(
                f"the file's key material is stored externally but {self.path} does not exist") from None
        except OSError as exc:
            raise ParquetEncryptionError(f"cannot read key material file {self.path}: {exc}") from None
        if len(raw) > MAX_KEY_MATERIAL_FILE_SIZE:
            raise ParquetEncryptionError(
                f"key material file {self.path} is over {MAX_KEY_MATERIAL_FILE_SIZE} bytes; "
                "key material is a few hundred bytes per key")
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ParquetEncryptionError(f"key material file {self.path} is not valid JSON: {exc}") from None
        if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
            raise ParquetEncryptionError(
                f"key material file {self.path} must be a JSON object of key id -> material string")
        self._materials = obj
        return obj

    def get(self, key_id_in_file: str) -> str:
        materials = self._load()
        try:
            return materials[key_id_in_file]
        except KeyError:
            raise ParquetEncryptionError(
                f"key material file {self.path} has no key {quoted(key_id_in_file)}") from None

    def key_ids(self) -> list[str]:
        return list(self._load())
