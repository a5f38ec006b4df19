"""``format("pqmeta")``: footers, page headers, indexes, Bloom filters and checks as DataFrames.

datasource (the DataSource and its tasks), options (the one parser of its option
strings), rows (one file's metadata at a level -> rows).
"""
