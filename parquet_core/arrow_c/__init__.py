"""The Arrow C Data and C Stream interfaces over ctypes, and their PyCapsules.

This package knows Arrow's three C structs (``ArrowSchema``, ``ArrowArray``,
``ArrowArrayStream``), how to fill them from plain descriptions of a type and
its buffers (:mod:`.export`), how to read them back (:mod:`.consume`), and
who frees what (release callbacks, capsule destructors).  It knows nothing
of parquet_core's columns: :mod:`parquet_core.schema.arrow_format` maps our
types to Arrow format strings and :mod:`parquet_core.table.arrow_c_export` /
:mod:`parquet_core.table.arrow_c_import` map our arrays to buffers, calling
down into this layer.  Nothing here imports pyarrow.
"""

from parquet_core.arrow_c.consume import ImportedArray, StreamReader, import_array, import_schema
from parquet_core.arrow_c.export import ArrayNode, SchemaNode, export_array, export_schema, export_stream

__all__ = ["ArrayNode", "SchemaNode", "ImportedArray", "StreamReader", "export_array", "export_schema",
           "export_stream", "import_array", "import_schema"]
