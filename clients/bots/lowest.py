"""A deterministic baseline: always the lowest legal card; passes its highest cards."""

from __future__ import annotations

from collections.abc import Sequence

from clients.sdk import Bot, View
from referee.rules import Card


def by_rank(card: Card) -> tuple[int, int]:
    # Rank first, suit to break ties: the same answer for the same view, whatever the order given.
    return card.rank, card.suit


class LowestBot(Bot):
    name = "lowest"
    version = "1"
    author = "hearts-arena"

    def __init__(self, seed: int | None = None) -> None:
        pass  # deterministic: the seed is accepted for a uniform command line, and ignored

    def pass_cards(self, view: View) -> Sequence[Card]:
        return sorted(view.hand, key=by_rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        return min(view.legal, key=by_rank)


if __name__ == "__main__":
    from clients.bots import main

    main("lowest")
