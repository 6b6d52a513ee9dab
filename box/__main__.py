"""`python -m box` is the `gravebox` command."""

import sys

from box.cli import main

sys.exit(main())
