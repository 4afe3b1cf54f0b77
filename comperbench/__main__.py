"""`python -m comperbench` runs the console script."""

import sys

from comperbench.cli import main

sys.exit(main())
