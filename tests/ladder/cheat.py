"""A test bot that breaks the rules now and then: faults, substitutes, and in time a forfeit."""

from __future__ import annotations

from typing import Any

from clients.bots import make_bot
from referee.rules import Card, Observation

_TWO_OF_CLUBS = Card.parse("2C")


class Cheat:
    """The lowest bot, except that every ``every``-th play is a held card the rules forbid now.
    When every held card is legal it plays as the lowest bot, or, with ``always``, the 2♣ it does
    not hold (``"XX"``, no card at all, when it holds the 2♣): a fault each time."""

    def __init__(self, every: int, *, always: bool = False) -> None:
        self.bot = make_bot("lowest")
        self.every, self.always = every, always
        self.n = 0

    def pass_cards(self, obs: Observation) -> Any:
        return self.bot.pass_cards(obs)  # type: ignore[arg-type]

    def play_card(self, obs: Observation) -> Any:
        self.n += 1
        if self.n % self.every:
            return self.bot.play_card(obs)  # type: ignore[arg-type]
        illegal = [c for c in obs.hand if c not in obs.legal]
        if illegal:
            return illegal[0]
        if not self.always:
            return self.bot.play_card(obs)  # type: ignore[arg-type]
        return _TWO_OF_CLUBS if _TWO_OF_CLUBS not in obs.hand else "XX"
