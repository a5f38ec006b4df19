"""PEP 517 build backend: setuptools' own, plus real shim files in editable wheels.

Spark finds Python data sources by listing the top-level modules named
``pyspark_*`` on its workers' ``sys.path`` (``pkgutil.iter_modules``).  A
wheel install puts ``pyspark_pqcore.py`` (and the other shims) into
site-packages, where that listing sees them.  An editable install
(``pip install -e .``) does not: for this flat layout setuptools installs an
import hook (a ``sys.meta_path`` finder that maps each top-level name to the
checkout), which can import the shims but cannot list them, so
``format("pqcore")`` fails with ``DATA_SOURCE_NOT_FOUND`` outside the checkout.

This backend delegates everything to ``setuptools.build_meta`` and changes one
thing: ``build_editable`` adds a copy of each ``pyspark_*.py`` shim of the
source tree to the editable wheel, so the install puts real, listable files
next to the hook.  The shims only import ``spark_adapter``, which the hook
still resolves to the checkout, so edits to the adapter need no reinstall
(an edit to a shim itself does, as for any file an install copies).

Only the standard library is used here; the wheel's ``RECORD`` is rewritten
with the hashes of the added files.
"""

from __future__ import annotations

import base64
import hashlib
import os
import zipfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the hooks this module does not change)

__all__ = list(_setuptools.__all__)

SHIM_PREFIX = "pyspark_"


def shim_files(source_dir: str = ".") -> list[str]:
    """The auto-discovery shims at the top of the source tree, sorted."""
    return sorted(n for n in os.listdir(source_dir)
                  if n.startswith(SHIM_PREFIX) and n.endswith(".py") and
                  os.path.isfile(os.path.join(source_dir, n)))


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def add_files_to_wheel(wheel_path: str, files: dict[str, bytes]) -> None:
    """Add *files* (archive name -> bytes) at the root of the wheel, replacing same-named
    entries, and rewrite its ``RECORD`` to list them."""
    with zipfile.ZipFile(wheel_path) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    record_name = next(info.filename for info, _ in entries
                       if info.filename.endswith(".dist-info/RECORD") and info.filename.count("/") == 1)
    kept = [(info, data) for info, data in entries
            if info.filename not in files and info.filename != record_name]
    record_text = next(data for info, data in entries if info.filename == record_name).decode("utf-8")
    lines = [line for line in record_text.splitlines()
             if line and line.split(",", 1)[0] not in files and line.split(",", 1)[0] != record_name]
    lines += [_record_line(name, data) for name, data in files.items()]
    lines.append(f"{record_name},,")
    tmp = wheel_path + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for info, data in kept:
            zout.writestr(info, data)
        for name, data in files.items():
            zout.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
        zout.writestr(zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0)),
                      ("\n".join(lines) + "\n").encode("utf-8"))
    os.replace(tmp, wheel_path)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    shims = {}
    for shim in shim_files("."):   # PEP 517 runs the backend in the source tree
        with open(shim, "rb") as fh:
            shims[shim] = fh.read()
    if shims:
        add_files_to_wheel(os.path.join(wheel_directory, name), shims)
    return name
