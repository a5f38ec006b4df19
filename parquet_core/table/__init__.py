"""L6 in-memory columns (numpy buffers) and the Table that groups them."""
