"""L5 column chunks: levels and values of one leaf, decoded page by page."""
