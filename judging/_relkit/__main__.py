"""``python -m relkit``: the same as the ``relkit`` command."""

import sys

from relkit.judging.cli import main

sys.exit(main())
