"""``python -m cli``: the ``hamlet`` console script."""

import sys

from cli.main import main

sys.exit(main())
