"""A uniformly random legal bot, seeded: its own RNG, so its choices never touch the deal's."""

from __future__ import annotations

import random
from collections.abc import Sequence

from clients.sdk import Bot, View
from referee.rules import TURBO_CARDS, Card, MoonChoice


class RandomBot(Bot):
    name = "random"
    version = "1"
    author = "hearts-arena"

    def __init__(self, seed: int | None = None) -> None:
        # One RNG per bot object: with concurrent games the draws interleave, which is fine for a
        # baseline; the same seed and the same sequence of requests give the same answers.
        self.rng = random.Random(seed)

    def pass_cards(self, view: View) -> Sequence[Card]:
        return self.rng.sample(view.hand.cards, view.rules.pass_count)

    def play_card(self, view: View) -> Card:
        return self.rng.choice(view.legal.cards)

    def charge_cards(self, view: View) -> Sequence[Card]:
        """turbo_charging: a uniformly random legal charge (none, or one of the chargeable cards it holds,
        or with turbo_charges=any any subset of them). Asked only under turbo_charging."""
        held = [c for c in TURBO_CARDS if c in view.hand]
        if view.rules.turbo_charges == "any":
            return [c for c in held if self.rng.random() < 0.5]
        return self.rng.sample(held, self.rng.randint(0, 1)) if held else []

    def choose_moon(self, view: View) -> MoonChoice:
        return self.rng.choice((MoonChoice.ADD_TO_OTHERS, MoonChoice.SUBTRACT_FROM_SHOOTER))


if __name__ == "__main__":
    from clients.bots import main

    main("random")
