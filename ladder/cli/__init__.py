"""The ``hearts`` command line. Each command is a thin call of one library function.

One module per command group (``hearts rules`` in rules.py, ``hearts arena`` in arena.py, ...), the options
and helpers they share in common.py, and the root group that adds them all in root.py. Their work lives
in the library (rules, referee, ladder, the arena, the site, the table). docs/cli.md documents every
command and option (tests/ladder/test_docs.py checks it).
"""

from ladder.cli.root import main

__all__ = ["main"]
