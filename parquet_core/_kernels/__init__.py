"""L0 numpy kernels: bit packing, varints, byte-array buffers. No Parquet semantics."""
