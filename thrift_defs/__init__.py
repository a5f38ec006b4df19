"""Thrift IDL of the Parquet format and the Python code generated from it."""
