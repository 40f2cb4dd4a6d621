"""A lowest-card bot whose process dies (os._exit) on its Nth play: the launcher must restart it.

``python mortal.py PORT N MARK``: MARK is a file; the bot dies only if MARK does not exist yet, and
creates it first, so the restarted process plays on normally.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from clients.sdk import Bot, View, serve
from referee.rules import Card


class Mortal(Bot):
    name = "mortal"

    def __init__(self, n: int, mark: Path) -> None:
        self.n = n
        self.mark = mark
        self.plays = 0

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        self.plays += 1
        if self.plays >= self.n and not self.mark.exists():
            self.mark.write_text("died once")
            os._exit(17)
        return min(view.legal, key=lambda c: (c.rank, c.suit))


if __name__ == "__main__":
    serve(Mortal(int(sys.argv[2]), Path(sys.argv[3])), port=int(sys.argv[1]))
