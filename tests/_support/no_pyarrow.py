"""The opening of a script that runs with pyarrow unimportable (the "no pyarrow" tests run
such a script in a subprocess): any ``import pyarrow...`` in it, or in what it imports,
raises ImportError."""

from __future__ import annotations

BLOCK_PYARROW = '''\
import sys


class BlockPyarrow:
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(f"pyarrow is blocked in this test ({name})")
        return None


sys.meta_path.insert(0, BlockPyarrow())
'''
