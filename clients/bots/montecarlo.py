"""A Monte Carlo bot: perfect-information Monte Carlo (PIMC) over worlds sampled from its view.

At each play decision it samples worlds (``clients.sampling``: deals of the unseen cards consistent
with everything the view knows), and in each world plays every legal card followed by a rollout to
the end of the hand with the engine's compiled rule-of-thumb policy (``Match.rollout``). Each card's
value is the mean over worlds of its points for this seat, minus a share of the others' mean (a moon
shot, which gives the others 26 each, is worth it; another seat's shot is worth stopping: the
rollouts score both). The card with the best mean is played. Worlds are drawn in rounds, every legal
card evaluated in the same worlds (paired), until the time manager's deadline.

The time manager: each decision spends ``budget_fraction`` of ``view.budget_ms`` plus
``bank_fraction`` of what is left of ``view.time_bank_ms``, less a fixed margin, measured with its
clock (``time.perf_counter`` unless given another) from when the call began; at least one world is
always evaluated when the time allows, and with no time at all the heuristic bot's card is played.
Nothing is kept between calls but the immutable settings, so concurrent matches are served by one
object: ``MonteCarloBot`` runs the search inline (in-process tournaments), ``ThreadedMonteCarloBot``
(``hearts bot serve montecarlo``) runs it in a thread (``asyncio.to_thread``) so a gRPC server keeps
answering other matches.

Passing, the moon choice, a kitty discard and a called pass follow the heuristic bot (a strong rule
set); every one-pack ruleset the engine plays works, since the search simulates with the engine itself.
With two packs (``rules.packs`` 2, 002 Cancellation Hearts) no worlds are sampled (``clients.sampling``
deals 52 unique cards): every play is the heuristic bot's, always legal.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence

from clients.bots.heuristic import HeuristicBot
from clients.sampling import InconsistentView, Sampler
from clients.sdk import View
from referee.rules import Card, MoonChoice
from referee.rules.state import ROLLOUT_RULES, rollout

MARGIN_S = 0.004  # kept back from every deadline: the answer's trip to the referee
ROUND = 1  # worlds drawn at a time between clock checks


class MonteCarloBot(HeuristicBot):
    name = "montecarlo"
    version = "1"
    author = "hearts-arena"

    def __init__(
        self,
        seed: int | None = None,
        budget_fraction: float = 0.5,
        bank_fraction: float = 0.02,
        others_weight: float = 0.25,
        policy: int = ROLLOUT_RULES,
        max_worlds: int = 100_000,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(seed)
        self.seed = seed
        self.budget_fraction = budget_fraction
        self.bank_fraction = bank_fraction
        self.others_weight = others_weight
        self.policy = policy
        self.max_worlds = max_worlds
        self.clock = clock  # what the search's time is read from (a test gives one it moves itself)

    # -- the clock ---------------------------------------------------------------------------------

    def think_seconds(self, view: View) -> float:
        """The time this decision may spend searching (seconds, from the call's start)."""
        spend = self.budget_fraction * view.budget_ms + self.bank_fraction * view.time_bank_ms
        return max(0.0, spend / 1000.0 - MARGIN_S)

    # -- play --------------------------------------------------------------------------------------

    def play_card(self, view: View) -> Card:
        return self.search(view, self.clock())[0]

    def worlds_to_search(self, view: View, start: float) -> tuple[Card, float, Sampler | None]:
        """What a search of a play starts from: the heuristic's card (the answer when there is no
        search), the deadline, and the view's sampler; None for the sampler when there is no time,
        two packs (002 Cancellation Hearts: the sampler deals one pack only) or no consistent world."""
        deadline = start + self.think_seconds(view)
        fallback = HeuristicBot.play_card(self, view)
        if self.clock() >= deadline or view.rules.packs != 1:
            return fallback, deadline, None
        try:
            return fallback, deadline, Sampler(view)
        except InconsistentView:
            return fallback, deadline, None

    def search(self, view: View, start: float) -> tuple[Card, dict[Card, float], int]:
        """The card to play, each legal card's mean value (lower is better) and how many worlds."""
        legal = view.legal.cards
        if len(legal) == 1:
            return legal[0], {legal[0]: 0.0}, 0
        fallback, deadline, sampler = self.worlds_to_search(view, start)
        if sampler is None:
            return fallback, {}, 0
        rng = random.Random(self.seed if self.seed is not None else None)
        me = view.seat
        n = view.rules.players
        w_others = self.others_weight / (n - 1)
        # With partners (002 Partnership Hearts) the team's points are ours: under team both partners
        # carry the team's score (one opponent's is the other team's), under individual they add up.
        partner = view.partner
        team = view.rules.partnership == "team"
        if partner is not None:
            w_others = self.others_weight if team else self.others_weight / 2
        totals = dict.fromkeys(legal, 0.0)
        worlds = 0
        policy = self.policy
        while worlds < self.max_worlds and self.clock() < deadline:
            for world in sampler.sample(ROUND, rng):
                base = world.hand
                for card in legal:
                    h = base.copy()
                    h.play(me, card)
                    pts = rollout(h, policy, rng.getrandbits(30))
                    if partner is None:
                        mine = pts[me]
                        theirs = sum(pts) - mine
                    elif team:
                        mine, theirs = pts[me], pts[(me + 1) % 4]
                    else:
                        mine = pts[me] + pts[partner]
                        theirs = sum(pts) - mine
                    totals[card] += mine - w_others * theirs
                worlds += 1
                if self.clock() >= deadline:
                    break
        if not worlds:
            return fallback, {}, 0
        means = {c: t / worlds for c, t in totals.items()}
        # The best mean; the heuristic's card on a tie (it breaks ties by sound rules).
        best = min(legal, key=lambda c: (means[c], c is not fallback))
        return best, means, worlds

    def choose_moon(self, view: View) -> MoonChoice:
        return HeuristicBot.choose_moon(self, view)

    def pass_cards(self, view: View) -> Sequence[Card]:
        return HeuristicBot.pass_cards(self, view)


class ThreadedMonteCarloBot(MonteCarloBot):
    """The same bot for a server: the search runs in a thread, so concurrent matches keep flowing."""

    async def play_card(self, view: View) -> Card:  # type: ignore[override]
        start = self.clock()
        if len(view.legal.cards) == 1:
            return view.legal.cards[0]
        card, _, _ = await asyncio.to_thread(self.search, view, start)
        return card


if __name__ == "__main__":
    from clients.bots import main

    main("montecarlo")
