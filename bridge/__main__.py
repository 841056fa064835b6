"""`python -m bridge`: see bridge/cli.py."""

import sys

from bridge.cli import main

sys.exit(main())
