"""``python -m memlab.cli``."""

import sys

from memlab.cli.main import main

sys.exit(main())
