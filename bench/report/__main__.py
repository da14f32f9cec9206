"""``python -m bench.report``: regenerate the figures, every study README and BENCHMARKS.md."""

import sys

from bench.report.build import main

sys.exit(main())
