"""A plain tournament database as the read model sees it: the file ``hearts match`` and ``hearts
tournament run`` write, without an arena's tables (no accounts, no submitted versions, no aliases, no
worker). The views (ladder/arena/views.py) read it as they read an arena, by their own rules for it:

- its owner (``OWNER``, the person who runs ``hearts replay --browser`` on their own file) sees
  everything in it;
- a reader of what it publishes (``VISITOR``, ``hearts site build``'s pages) sees every bot by its
  name and every match whole, but no address a bot was reached at (a seat's address, and the
  addresses in its faults' texts, are where the owner's or a student's machine listens).

No deal is withheld: nobody plays against the file's matches while they are read. The file is only
read (SQLite's ``mode=ro``), never given an arena's tables.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from ladder.arena.accounts import Account
from ladder.store import Store

__all__ = ["OWNER", "LocalState"]

OWNER = Account(id=0, name="", role="owner", alias="")
"""The file's owner: sees everything in it."""


@dataclass
class LocalState:
    """One plain database, read through a read-only connection of the caller's thread."""

    path: Path
    name: str = ""
    """What its pages are titled by: the file's name unless given."""

    def __post_init__(self) -> None:
        self._local = threading.local()
        if not self.name:
            self.name = self.path.name

    @property
    def store(self) -> Store:
        # One connection per thread: SQLite connections are not shared across threads.
        s: Store | None = getattr(self._local, "store", None)
        if s is None:
            s = Store(self.path, readonly=True)
            self._local.store = s
        return s
