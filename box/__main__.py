"""`python -m box` is the `gravebox` command."""

import sys

from box.cli.main import main

sys.exit(main())
