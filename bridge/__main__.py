"""`python -m bridge`: see bridge/cli/__init__.py."""

import sys

from bridge.cli import main

if __name__ == "__main__":
    sys.exit(main())
