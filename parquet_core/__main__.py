"""``python -m parquet_core`` runs the ``pqc`` command line."""

import sys

from parquet_core.cli import main

sys.exit(main())
