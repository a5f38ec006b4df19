"""The reading entry points ``import parquet_core`` hands out, with the validator handed in.

``strict=True`` runs the validator (``pc.check``), which sits above the file and dataset
layers: they cannot import it.  Rather than have the package write it into a class of a
lower layer at run time, this layer, above the validator, injects it:

* :class:`parquet_core.entry.file.ParquetFile`: the file layer's ``ParquetFile`` whose
  class body names the validator (its ``strict_validator`` seam);
* :class:`parquet_core.entry.dataset.ParquetDataset`: the dataset layer's, whose class body
  names that ``ParquetFile`` as the class its files are opened with (``file_class``);
* ``read_table``, ``read_pandas``, ``read_metadata``, ``read_schema``: the dataset layer's
  functions, handed that ``ParquetDataset`` (``dataset_class=``).

These are ``pc.ParquetFile``, ``pc.ParquetDataset`` and ``pc.read_*``.  Nothing below is
written after import, and the validator itself is imported when ``strict=True`` first
needs it (opening a file for its schema loads none of it).  The two modules are separate
so that asking for ``pc.ParquetFile`` loads no dataset layer.
"""
