"""What every ``pqc`` command shares: key and KMS options, column selection, output, errors.

Keys are given as ASCII text or ``hex:`` followed by hex digits. Files whose
keys sit in a KMS take ``--kms-class module:Class`` (a ``pc.KmsClient``
subclass, or any callable taking a ``KmsConnectionConfig`` and returning a
client) plus ``--kms-conf KEY=VALUE``; external key material
(``_KEY_MATERIAL_FOR_*.json`` beside the file) is found from the file's path.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from typing import Any, Callable, Iterable, Sequence

from parquet_core.encryption.properties import FileDecryptionProperties, FileEncryptionProperties
from parquet_core.errors import ParquetError
from parquet_core.metadata.thrift_dict import plain_value

__all__ = ["OutputClosed", "add_storage_option", "storage_options_arg", "parse_storage_options", "expand_files", "each_file", "add_key_options", "add_encrypt_options", "decryption_for", "encryption_from",
           "cli_message", "report_error", "emit", "select_leaves", "add_columns_option"]


def _key_text(text: str) -> bytes:
    """``hex:0a1b...`` as bytes, anything else as its ASCII (UTF-8) bytes."""
    if text.startswith("hex:"):
        try:
            return bytes.fromhex(text[4:])
        except ValueError:
            raise argparse.ArgumentTypeError(f"not hex digits: {text[4:]!r}") from None
    return text.encode("utf-8")


def _column_key(text: str) -> tuple[str, bytes]:
    path, sep, key = text.partition(":")
    if not sep or not path:
        raise argparse.ArgumentTypeError(f"expected COLUMN:KEY, got {text!r}")
    return path, _key_text(key)


def add_key_options(p: argparse.ArgumentParser) -> None:
    """The decryption options: explicit keys, or a KMS class."""
    g = p.add_argument_group("decryption (keys as ASCII text, or hex:DIGITS)")
    g.add_argument("--footer-key", type=_key_text, help="footer key (also the key of uniformly encrypted columns)")
    g.add_argument("--column-key", type=_column_key, action="append", default=[], metavar="COLUMN:KEY",
                   help="key of one encrypted column, by dotted path (repeatable)")
    g.add_argument("--aad-prefix", type=_key_text, help="AAD prefix the file does not store")
    g.add_argument("--no-verify-footer", action="store_true",
                   help="do not verify a plaintext footer's signature")
    g.add_argument("--kms-class", metavar="MODULE:CLASS",
                   help="KMS client class (or factory) that unwraps the keys named in the file's key "
                        "metadata; external key material is read beside the file")
    g.add_argument("--kms-conf", action="append", default=[], metavar="KEY=VALUE",
                   help="custom_kms_conf entry for the KMS client (repeatable)")
    g.add_argument("--kms-instance-id", default="", help="KmsConnectionConfig.kms_instance_id")
    g.add_argument("--kms-instance-url", default="", help="KmsConnectionConfig.kms_instance_url")
    g.add_argument("--key-access-token", default=None, help="KmsConnectionConfig.key_access_token")


def _load_object(spec: str) -> Any:
    module, sep, name = spec.partition(":")
    if not sep:
        module, _, name = spec.rpartition(".")
    if not module or not name:
        raise ValueError(f"--kms-class takes MODULE:CLASS, got {spec!r}")
    try:
        obj: Any = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--kms-class {spec}: cannot load it ({exc})") from None
    return obj


def _kms_factory(args: argparse.Namespace) -> Any:
    from parquet_core.encryption.keytools.factory import CryptoFactory
    from parquet_core.encryption.keytools.kms import KmsConnectionConfig

    cls = _load_object(args.kms_class)
    conf = {}
    for item in args.kms_conf:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--kms-conf takes KEY=VALUE, got {item!r}")
        conf[key] = value
    kwargs: dict[str, Any] = {"kms_instance_id": args.kms_instance_id,
                              "kms_instance_url": args.kms_instance_url, "custom_kms_conf": conf}
    if args.key_access_token is not None:
        kwargs["key_access_token"] = args.key_access_token
    return CryptoFactory(cls), KmsConnectionConfig(**kwargs)


def decryption_for(args: argparse.Namespace, path: str | None = None) -> FileDecryptionProperties | None:
    """The decryption properties the options give for one file (None: no key options)."""
    if getattr(args, "kms_class", None):
        factory, config = _kms_factory(args)
        return factory.file_decryption_properties(config, parquet_file_path=path)
    if args.footer_key is None and not args.column_key and args.aad_prefix is None:
        return None
    return FileDecryptionProperties(footer_key=args.footer_key, column_keys=dict(args.column_key),
                                    aad_prefix=args.aad_prefix,
                                    verify_plaintext_footer=not args.no_verify_footer)


def add_encrypt_options(p: argparse.ArgumentParser) -> None:
    """Options that encrypt a written file (``rewrite``, ``merge``)."""
    g = p.add_argument_group("encryption of the output (keys as ASCII text, or hex:DIGITS)")
    g.add_argument("--encrypt-footer-key", type=_key_text, help="encrypt the output with this footer key")
    g.add_argument("--encrypt-column-key", type=_column_key, action="append", default=[],
                   metavar="COLUMN:KEY", help="encrypt one column with its own key (repeatable)")
    g.add_argument("--encrypt-algorithm", choices=("AES_GCM_V1", "AES_GCM_CTR_V1"), default="AES_GCM_V1")
    g.add_argument("--encrypt-aad-prefix", type=_key_text, help="AAD prefix (stored in the file)")
    g.add_argument("--plaintext-footer", action="store_true", help="keep the footer readable (signed)")


def encryption_from(args: argparse.Namespace) -> FileEncryptionProperties | None:
    """The output's encryption properties, or None when no ``--encrypt-*`` key is given."""
    if args.encrypt_footer_key is None:
        if args.encrypt_column_key:
            raise ValueError("--encrypt-column-key needs --encrypt-footer-key")
        return None
    return FileEncryptionProperties(footer_key=args.encrypt_footer_key,
                                    column_keys=dict(args.encrypt_column_key) or None,
                                    algorithm=args.encrypt_algorithm, aad_prefix=args.encrypt_aad_prefix,
                                    plaintext_footer=args.plaintext_footer)


# The library's errors name its Python API; a command-line user needs the option instead.
_PHRASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"pass decryption=FileDecryptionProperties\(\.\.\.\) with the footer key"),
     "give the footer key with --footer-key KEY (or --kms-class for keys kept in a KMS)"),
    (re.compile(r"pass decryption=FileDecryptionProperties\(\.\.\.\) with its key"),
     "give its key with --column-key COLUMN:KEY or --footer-key KEY (or --kms-class)"),
    (re.compile(r"supply it as FileDecryptionProperties\(aad_prefix=\.\.\.\)"),
     "give it with --aad-prefix PREFIX"),
    (re.compile(r"given in decryption="), "given with --aad-prefix"),
    (re.compile(r"verify_plaintext_footer=False"), "--no-verify-footer"),
]


def cli_message(text: str) -> str:
    """An error message with the Python API's advice replaced by the command line's options."""
    for pattern, repl in _PHRASES:
        text = pattern.sub(repl, text)
    return text


def report_error(path: str, exc: BaseException) -> None:
    """Print an error and its notes for the command line, on stderr (the file named once:
    the line starts with it, so the message's own ``(while reading file ...)`` goes)."""
    text = str(exc)
    for action in ("reading", "writing"):
        text = text.replace(f" (while {action} file {path!r})", "")
    print(f"pqc: {path}: {cli_message(text)}", file=sys.stderr)
    for note in getattr(exc, "__notes__", []):
        print(f"pqc:   {cli_message(note)}", file=sys.stderr)


def _json_default(v: Any) -> Any:
    out = plain_value(v)
    if out is v:
        raise TypeError(f"not JSON serialisable: {type(v).__name__}")
    return out


class OutputClosed(Exception):
    """Standard output was closed by its reader (``pqc cat f | head -1``): stop quietly.

    Deliberately neither an ``OSError`` nor a ``ParquetError``, so no per-file error
    handler reports it; :func:`parquet_core.cli.main` turns it into exit status 141.
    """


def emit(lines: Iterable[str | dict[str, Any]]) -> None:
    """Print text lines or JSON objects (one per line) and flush them.

    Raises :class:`OutputClosed` when the reader of standard output has gone.
    """
    try:
        for line in lines:
            print(line if isinstance(line, str) else json.dumps(line, default=_json_default))
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head` and closed early
        raise OutputClosed() from None


def add_columns_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--columns", "-c", action="append", default=[], metavar="COL[,COL...]",
                   help="only these columns: dotted leaf paths or top-level names (repeatable)")


def columns_arg(args: argparse.Namespace) -> list[str] | None:
    """The ``--columns`` values, split at commas (None: every column)."""
    names = [n.strip() for item in args.columns for n in item.split(",") if n.strip()]
    return names or None


def select_leaves(pf: Any, names: Sequence[str] | None) -> list[int]:
    """Leaf indices named by ``--columns`` (every leaf for None); ValueError for an unknown name."""
    schema = pf.metadata.schema
    if not names:
        return list(range(len(schema)))
    out: list[int] = []
    for name in names:
        try:
            found = [schema.index_of(tuple(name.split(".")))]
        except KeyError:
            found = [i for i in range(len(schema))
                     if schema.column(i).dotted_path.split(".")[0] == name]
        if not found:
            leaves = [schema.column(i).dotted_path for i in range(len(schema))]
            raise ValueError(f"no column {name!r}; the leaf columns are {', '.join(leaves)}")
        out.extend(i for i in found if i not in out)
    return out


def add_storage_option(p: argparse.ArgumentParser) -> None:
    """``--storage-option KEY=VALUE`` for URLs (s3://, gs://, memory://...)."""
    p.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                   help="fsspec storage option for URLs (VALUE parsed as JSON when it can be)")


def storage_options_arg(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``--storage-option`` values as a dict (None when there are none)."""
    return parse_storage_options(getattr(args, "storage_option", None) or ())


def parse_storage_options(items: Sequence[str]) -> dict[str, Any] | None:
    """``KEY=VALUE`` items as a dict, each VALUE parsed as JSON when it can be (None: no items)."""
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--storage-option takes KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out or None


def expand_files(path: str, storage_options: dict[str, Any] | None) -> list[str]:
    """The Parquet data files one command-line argument names.

    A file is itself; a folder (walked recursively) or a glob gives its data
    files in path order, litter skipped by the dataset layer's rule (names
    starting with ``_`` or ``.``: ``_SUCCESS``, ``.crc``, ``_metadata``).
    URLs stay URLs, so each file is opened with the same storage options.
    """
    from parquet_core.dataset.discovery import discover
    from parquet_core.file.filesystem import resolve_filesystem

    fs, (inner,) = resolve_filesystem([path], None, storage_options)
    if fs.kind(inner) == "file":
        return [path]
    found = discover(fs, [inner], use_summary=False)
    if not found.files:
        raise FileNotFoundError(f"no Parquet data files in {path}")
    return [fs.display(p) for p, _ in found.files]


def each_file(paths: Sequence[str], work: Callable[[str], int],
              storage_options: dict[str, Any] | None = None, unreadable: int = 1,
              expand: bool = True) -> int:
    """Run *work* on every file the paths name (folders and globs expanded).

    An error is reported on stderr and gives exit status *unreadable* (1 by
    default); the remaining files are still processed.  ``expand=False``
    takes the paths as they are (an output file that does not exist yet).
    """
    status = 0
    for arg in paths:
        try:
            files = expand_files(arg, storage_options) if expand else [arg]
        except (ParquetError, OSError, ValueError, ImportError) as exc:
            report_error(arg, exc)
            status = max(status, unreadable)
            continue
        for path in files:
            try:
                status = max(status, work(path))
            except (ParquetError, OSError, ValueError, IndexError) as exc:
                report_error(path, exc)
                status = max(status, 1)
    return status
