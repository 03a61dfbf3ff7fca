"""`python -m cli …` is `brain …` (the console script) run from a checkout."""

import logging
import sys

from cli.main import main

logging.captureWarnings(True)
sys.exit(main())
