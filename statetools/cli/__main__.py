"""``python -m statetools.cli``: the ``statetools`` command."""

import sys

from statetools.cli import main

if __name__ == "__main__":
    sys.exit(main())
