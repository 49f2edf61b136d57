"""`python -m nodwyn.cli`: the same as the `nodwyn` command."""

import sys

from . import main

sys.exit(main())
