"""``format("kartothek")``: Kartothek datasets (``integrations.kartothek``) from Spark.

datasource (the DataSource, reader and writer), options (the one parser of its
option strings).
"""
