"""L2 metadata: wrappers over the raw thrift footer, statistics, writer quirks."""
