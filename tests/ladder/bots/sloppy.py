"""A bot that breaks the rules: it plays the highest card of its hand, legal or not.

``python sloppy.py PORT``: every play that is not legal is an ``illegal_card`` fault (3 forfeit the
match), so its faults are all of one kind.
"""

from __future__ import annotations

import sys

from clients.sdk import Bot, View, serve
from referee.rules import Card


class Sloppy(Bot):
    name = "sloppy"

    def pass_cards(self, view: View) -> list[Card]:
        return sorted(view.hand, key=lambda c: (c.rank, c.suit))[: view.rules.pass_count]

    def play_card(self, view: View) -> Card:
        return max(view.hand, key=lambda c: (c.rank, c.suit))


if __name__ == "__main__":
    serve(Sloppy(), port=int(sys.argv[1]))
