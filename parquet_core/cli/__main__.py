"""``python -m parquet_core.cli ...``: the ``pqc`` command without its console script."""

import sys

from parquet_core.cli import main

sys.exit(main())
