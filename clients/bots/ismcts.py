"""A search bot: information-set Monte Carlo tree search (ISMCTS) over worlds sampled from its view.

One tree per decision, over this seat's information set: every iteration takes a world (a deal of the
unseen cards consistent with the view, ``clients.sampling``), walks the tree from the decision with
the cards legal in that world, each seat choosing for itself (UCB1 over the children legal in the
world, each child's count of the times it was legal standing for the parent's visits: the
"availability" of single-observer ISMCTS), adds one node, plays the rest of the hand with the
engine's compiled rule-of-thumb rollout and backs the hand's points up the walked path, each node
scored for the seat that chose it. The card played is the root's most visited child. Unlike flat
Monte Carlo (``montecarlo``), its own later cards and the others' replies are searched, not left to
the rollout policy: a trick it can duck later, a moon it can run, another's moon it can stop.

A seat's utility for a hand is its points minus a share of the others' (``others_weight``): a moon
shot, which gives every other seat 26, is worth running, and worth stopping when another runs it.
With partners the team's points are the seat's, as in ``montecarlo``.

Passing is searched too: each candidate pass (sets of the cards most worth passing, the heuristic's
own pass always among them) is played out in the same worlds (paired): this seat's pass, the others'
by the rollout's rule (their highest cards), then the hand by the rollout policy; the pass with the
best mean is given. Directions other than a fixed seat (scatter, split, called, mixed passes),
kitty discards, turbo charges, the moon choice and two packs (``rules.packs`` 2: the sampler deals
one pack) follow the heuristic bot, always legal.

The clock is ``montecarlo``'s (``think_seconds``): the same share of the budget and the bank, so at
the same settings both think as long; ``max_worlds`` caps a play's iterations and a pass's worlds.
Nothing is kept between calls: one object serves concurrent matches; ``ThreadedSearchBot``
(``hearts bot serve ismcts``) searches in a thread.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import math
import random
from collections.abc import Sequence

from clients.bots.heuristic import HeuristicBot
from clients.bots.montecarlo import MonteCarloBot
from clients.sampling import InconsistentView, Sampler, World
from clients.sdk import View
from referee.rules import Card, Phase
from referee.rules.cards import DECK
from referee.rules.state import ROLLOUT_RULES, Hand, hand_points, rollout

EXPLORE = 0.7
"""UCB1's exploration constant, for utilities of about -1..1 (points over 26)."""
REUSE = 4
"""Iterations a world is drawn for: a new world every REUSE iterations, each iteration one of the pool's."""
MAX_POOL = 256
"""Worlds drawn at most for one decision (past it, iterations cycle through them)."""
PASS_CANDIDATES = 7
"""The cards most worth passing that candidate passes are made of (C(7, 3) = 35 sets at three cards)."""
_FIXED = ("left", "right", "across", "left2", "right2")


TABLE = 1 << 16
"""Counts up to which UCB1's square roots and logarithms are read from tables (past it, computed)."""


@functools.cache
def _tables() -> tuple[list[float], list[float]]:
    """EXPLORE * sqrt(ln a) and 1 / sqrt(v) for counts below TABLE, made once per process."""
    explore_log = [0.0] + [EXPLORE * math.sqrt(math.log(a)) for a in range(1, TABLE)]
    inv_sqrt = [0.0] + [1.0 / math.sqrt(v) for v in range(1, TABLE)]
    return explore_log, inv_sqrt


class _Node:
    """A decision taken in the tree: the seat that took it, how often it was walked and legal, the
    sum of the utilities backed up for that seat."""

    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.children: dict[int, _Node] = {}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        b = mask & -mask
        out.append(b)
        mask ^= b
    return out


class SearchBot(MonteCarloBot):
    name = "ismcts"
    version = "1"
    author = "hearts-arena"

    # -- utilities -------------------------------------------------------------------------------

    def _utilities(self, view: View) -> list[tuple[float, float, int | None]]:
        """Per seat: the weight of its own points, of the others', and its partner (None)."""
        n = view.rules.players
        out: list[tuple[float, float, int | None]] = []
        team = view.rules.partnership == "team"
        for s in range(n):
            partner = view.rules.partner(s)
            w = self.others_weight / (n - 1)
            if partner is not None:
                w = self.others_weight if team else self.others_weight / 2
            out.append((1.0, w, partner))
        return out

    @staticmethod
    def _utility(pts: list[int], seat: int, weights: tuple[float, float, int | None], team: bool) -> float:
        own, w, partner = weights
        total = sum(pts)
        if partner is None:
            mine = pts[seat]
            theirs = total - mine
        elif team:
            mine, theirs = pts[seat], pts[(seat + 1) % len(pts)]
        else:
            mine = pts[seat] + pts[partner]
            theirs = total - mine
        return -(own * mine - w * theirs) / 26.0

    # -- play --------------------------------------------------------------------------------------

    def play_card(self, view: View) -> Card:
        return self.search(view, self.clock())[0]

    def search(self, view: View, start: float) -> tuple[Card, dict[Card, float], int]:
        """The card to play, each legal card's share of the root's visits, and the iterations run."""
        legal = view.legal.cards
        if len(legal) == 1:
            return legal[0], {legal[0]: 1.0}, 0
        fallback, deadline, sampler = self.worlds_to_search(view, start)
        if sampler is None:
            return fallback, {}, 0
        rng = random.Random(self.seed)
        weights = self._utilities(view)
        team = view.rules.partnership == "team"
        root = _Node(view.seat)
        worlds: list[World] = []
        i = 0
        clock = self.clock
        log = math.log
        sqrt = math.sqrt
        explore_log, inv_sqrt = _tables()
        utility = self._utility
        seats = range(view.rules.players)
        PLAY, OVER = Phase.PLAY, Phase.OVER
        cap = self.max_worlds
        while clock() < deadline and i < cap:
            # Drawing a world costs about an iteration: a new one every few iterations, up to a pool.
            if i % REUSE == 0 and len(worlds) < MAX_POOL:
                worlds.extend(sampler.sample(1, rng))
                if not worlds:
                    break
            h = worlds[i % len(worlds)].hand.copy()
            i += 1
            node = root
            path: list[_Node] = []
            while h.phase is PLAY:
                seat = h.turn
                mask = h.legal_mask(seat)
                children = node.children
                untried: list[int] = []
                best = 0
                best_score = -1e9
                while mask:
                    b = mask & -mask
                    mask ^= b
                    c = children.get(b)
                    if c is None:
                        untried.append(b)
                        continue
                    c.available += 1
                    if not untried:
                        a, v = c.available, c.visits
                        if a < TABLE:  # visits never pass availability
                            score = c.total / v + explore_log[a] * inv_sqrt[v]
                        else:
                            score = c.total / v + EXPLORE * sqrt(log(a) / v)
                        if score > best_score:
                            best, best_score = b, score
                if untried:
                    b = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    child = children[b] = _Node(seat)
                    child.available = 1
                    h.play(seat, DECK[b.bit_length() - 1])
                    path.append(child)
                    break
                h.play(seat, DECK[best.bit_length() - 1])
                node = children[best]
                path.append(node)
            pts = hand_points(h) if h.phase is OVER else rollout(h, ROLLOUT_RULES, rng.getrandbits(30))
            values = [utility(pts, s, weights[s], team) for s in seats]
            for n in path:
                n.visits += 1
                n.total += values[n.seat]
            root.visits += 1
        if not root.children:
            return fallback, {}, 0
        by_card = {c: root.children[c.mask].visits if c.mask in root.children else 0 for c in legal}
        best_card = max(legal, key=lambda c: (by_card[c], c is fallback))
        visits = max(1, root.visits)
        return best_card, {c: v / visits for c, v in by_card.items()}, root.visits

    # -- passing ------------------------------------------------------------------------------------

    def pass_cards(self, view: View) -> Sequence[Card]:
        heuristic = list(HeuristicBot.pass_cards(self, view))
        rules = view.rules
        k = rules.pass_count
        if view.pass_direction not in _FIXED or rules.packs != 1 or k == 0 or len(view.hand) <= k:
            return heuristic
        start = self.clock()
        deadline = start + self.think_seconds(view)
        try:
            sampler = Sampler(view)
        except (InconsistentView, ValueError):
            return heuristic
        candidates = self._pass_candidates(view, heuristic)
        if len(candidates) < 2:
            return heuristic
        rng = random.Random(self.seed)
        weights = self._utilities(view)
        team = rules.partnership == "team"
        me = view.seat
        totals = [0.0] * len(candidates)
        worlds = 0
        while self.clock() < deadline and worlds < self.max_worlds:
            drawn = sampler.sample(1, rng)
            if not drawn:
                break
            base: Hand = drawn[0].hand
            for j, cards in enumerate(candidates):
                h = base.copy()
                h.pass_cards(me, cards)
                pts = rollout(h, ROLLOUT_RULES, rng.getrandbits(30))
                totals[j] += self._utility(pts, me, weights[me], team)
            worlds += 1
        if worlds < 4:  # too few worlds to tell passes apart: the heuristic's is the sound default
            return heuristic
        best = max(range(len(candidates)), key=lambda j: (totals[j], candidates[j] == heuristic))
        return list(candidates[best])

    @staticmethod
    def _pass_candidates(view: View, heuristic: list[Card]) -> list[tuple[Card, ...]]:
        """Sets of the cards most worth passing (the highest, spades' and hearts' first at a rank, the
        heuristic's choice among them), and the heuristic's own pass."""
        k = view.rules.pass_count
        points = view.rules.card_points

        def worth(c: Card) -> tuple[int, int]:
            return (c.rank + (2 if points[c.index] > 0 else 0), c.index)

        top = sorted(view.hand, key=worth, reverse=True)[:PASS_CANDIDATES]
        pool = list(dict.fromkeys([*heuristic, *top]))
        out = [tuple(heuristic)]
        for combo in itertools.combinations(pool, k):
            if set(combo) != set(heuristic):
                out.append(combo)
        return out


class ThreadedSearchBot(SearchBot):
    """The same bot for a server: the search runs in a thread, so concurrent matches keep flowing."""

    async def play_card(self, view: View) -> Card:  # type: ignore[override]
        start = self.clock()
        if len(view.legal.cards) == 1:
            return view.legal.cards[0]
        card, _, _ = await asyncio.to_thread(self.search, view, start)
        return card

    async def pass_cards(self, view: View) -> Sequence[Card]:  # type: ignore[override]
        return await asyncio.to_thread(SearchBot.pass_cards, self, view)


if __name__ == "__main__":
    from clients.bots import main

    main("ismcts")
