"""A Monte Carlo bot in about 40 lines (docs/sdk.md): sample worlds, roll each card out, play the best."""

import random
import time

from clients.sdk import Bot, serve
from referee.rules.state import ROLLOUT_RULES, rollout


class SmallMonteCarlo(Bot):
    name = "small-montecarlo"

    def __init__(self, share: float = 0.5) -> None:
        self.share = share  # of each decision's budget
        self.rng = random.Random(1)

    def pass_cards(self, view):
        # Pass the highest cards (rank, then hearts before the rest).
        return sorted(view.hand, key=lambda c: (c.rank, c.suit == 3))[-view.rules.pass_count :]

    def play_card(self, view):
        legal = view.legal.cards
        if len(legal) == 1:
            return legal[0]
        deadline = time.perf_counter() + self.share * view.budget_ms / 1000 - 0.004
        total = dict.fromkeys(legal, 0)
        worlds = 0
        while time.perf_counter() < deadline or worlds == 0:
            for world in view.sample_worlds(1, self.rng):  # a deal of the unseen cards, consistent
                for card in legal:
                    hand = world.to_hand()  # the engine's hand at this decision, in that world
                    hand.play(view.seat, card)
                    total[card] += rollout(hand, ROLLOUT_RULES, self.rng.getrandbits(30))[view.seat]
                worlds += 1
        return min(legal, key=lambda c: total[c])  # the fewest points on average


if __name__ == "__main__":
    serve(SmallMonteCarlo(), port=50051)
