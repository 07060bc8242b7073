"""``python -m statetools``: the ``statetools`` command (as ``python -m statetools.cli``)."""

import sys

from statetools.cli import main

if __name__ == "__main__":
    sys.exit(main())
