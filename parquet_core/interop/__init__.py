"""Conversions to other libraries (pyarrow, pandas), imported only on demand.

This package sits outside the engine's layers: nothing in the core imports
it at module level, and it is the only place allowed to import pyarrow.
"""
