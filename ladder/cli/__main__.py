"""``python -m ladder.cli``: the ``hearts`` command."""

import os

from ladder.cli import main

os.environ.setdefault("PYTHONUNBUFFERED", "1")
main()
