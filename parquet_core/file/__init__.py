"""L7 files: the only layer that does IO (positional reads of a source)."""
