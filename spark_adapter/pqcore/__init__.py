"""``format("pqcore")``: read and write Parquet files and Hive-partitioned folders.

datasource (the DataSource), options (the one parser of its option strings),
reader / scan (tasks, pruning, batches), writer / task_files (staged files, commit),
narrow (``spark_adapter.read``: columns and filters taken from a query's plan).
"""
