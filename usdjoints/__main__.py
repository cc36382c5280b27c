"""``python -m usdjoints``: the same command line as the ``usdjoints`` script."""
import sys

from .cli import main

sys.exit(main())
