"""L2 schema: the tree of SchemaElements, leaf descriptors and logical types."""
