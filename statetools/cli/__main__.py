"""``python -m statetools.cli``: the ``statetools`` command."""

import sys

from statetools.cli import main

sys.exit(main())
