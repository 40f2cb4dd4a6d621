"""The search bot (ISMCTS) through the referee, under a 20 ms budget in rulesets of each kind (two
packs, turbo charges, booster nines, kitties, partners, three and five seats) with no fault; its
search anytime on a clock the test moves; its passes searched among candidates."""

from __future__ import annotations

import asyncio
import gc
import random
import sys
from pathlib import Path

import pytest
from bot_harness import cpu_timed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from positions import random_step  # noqa: E402

from clients.bots import make_bot
from clients.bots.heuristic import HeuristicBot
from clients.bots.ismcts import SearchBot
from clients.view import view_of
from ladder.bots.inprocess import SdkSeat
from referee.match import MatchSettings, play_match
from referee.rules import Match, Phase, Rules

BUDGET = MatchSettings(budget_ms=20, bank_ms=200)
LOADED = MatchSettings(budget_ms=20, bank_ms=200, grace_ms=10_000)  # the bot is told 20 ms; load is forgiven
RULESETS = {
    **{
        name: Rules.preset(name, target=40)
        for name in ("standard", "turbo", "cancellation", "booster-nines", "black-maria", "partnership", "omnibus")
    },
    "three-seats": Rules(players=3, pass_count=4, target=40),
    "five-seats-kitty": Rules(players=5, removed_cards="2C", kitty="first-points", kitty_discard=True, target=40),
}


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.slow
def test_the_search_bot_plays_each_kind_of_ruleset_through_the_referee_without_a_fault(name: str) -> None:
    rules = RULESETS[name]
    bot = cpu_timed(SearchBot)(seed=1)
    seats = [SdkSeat(bot, "ismcts")] + [SdkSeat(HeuristicBot(), f"h{i}") for i in range(rules.players - 1)]
    gc.collect()
    gc.freeze()  # the collector sees what the match allocates, as in a bot's own process
    try:
        record = asyncio.run(play_match(seats, rules, 3, settings=LOADED))
    finally:
        gc.unfreeze()
    assert record.status.value == "finished"
    assert record.faults == []
    assert bot.spent_ms and max(bot.spent_ms) < BUDGET.budget_ms + BUDGET.grace_ms, max(bot.spent_ms)


class _Ticking:
    """A clock that moves on by ``step`` each time it is read."""

    def __init__(self, step: float) -> None:
        self.step, self.now = step, 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _mid_hand(seed: int, tricks: int = 4) -> tuple[Match, int]:
    rng = random.Random(seed)
    m = Match(Rules(), seed)
    while not (m.phase is Phase.PLAY and len(m.hand.tricks) == tricks and len(m.legal_plays().cards) > 2):
        random_step(m, rng)
        if m.phase is Phase.PLAY and len(m.hand.tricks) > tricks:
            m = Match(Rules(), seed := seed + 100)
    return m, m.to_move[0]


def test_the_search_is_anytime_and_stops_at_its_deadline() -> None:
    """Mid hand: the card is legal, every legal card was tried at the root, and the search stops at
    its deadline, past it by one iteration's readings of the clock at most."""
    m, seat = _mid_hand(4)
    view = view_of(m.observation(seat), "t", ("a", "b", "c", "d"), 100, 1000)
    ticks = _Ticking(0.0001)
    bot = SearchBot(seed=1, clock=ticks)
    start = ticks()
    card, shares, iterations = bot.search(view, start)
    spent = ticks.now - start
    assert card in view.legal
    assert set(shares) == set(view.legal) and all(v > 0 for v in shares.values())
    assert iterations > 20
    assert bot.think_seconds(view) <= spent < bot.think_seconds(view) + 0.0001 * 5
    # The most visited card is the one played.
    assert shares[card] == max(shares.values())


def test_the_same_seed_and_clock_search_alike_and_no_time_plays_the_heuristics_card() -> None:
    m, seat = _mid_hand(9)
    view = view_of(m.observation(seat), "t", ("a", "b", "c", "d"), 100, 1000)
    first = SearchBot(seed=3, clock=_Ticking(0.0001)).search(view, 0.0)
    again = SearchBot(seed=3, clock=_Ticking(0.0001)).search(view, 0.0)
    assert first == again
    broke = SearchBot(seed=3, budget_fraction=0.0, bank_fraction=0.0)
    assert broke.play_card(view) == HeuristicBot().play_card(view)


def test_a_pass_is_searched_among_sets_that_hold_the_heuristics_own() -> None:
    m = Match(Rules(), 12)
    view = view_of(m.observation(0), "t", ("a", "b", "c", "d"), 100, 1000)
    heuristic = list(HeuristicBot().pass_cards(view))
    candidates = SearchBot._pass_candidates(view, heuristic)
    assert candidates[0] == tuple(heuristic) and len(set(candidates)) == len(candidates) > 10
    assert all(len(c) == 3 and set(c) <= set(view.hand) for c in candidates)
    chosen = SearchBot(seed=1, clock=_Ticking(0.0005)).pass_cards(view)
    assert len(chosen) == 3 and len(set(chosen)) == 3 and set(chosen) <= set(view.hand)
    # Without the time to tell passes apart, the heuristic's pass.
    assert SearchBot(seed=1, budget_fraction=0.0, bank_fraction=0.0).pass_cards(view) == heuristic


def test_hearts_bot_serve_offers_the_search_bot() -> None:
    bot = make_bot("ismcts", seed=2, budget_fraction=0.25)
    assert isinstance(bot, SearchBot) and bot.budget_fraction == 0.25 and bot.name == "ismcts"


def test_the_small_search_bot_in_docs_is_the_example_file_and_plays() -> None:
    from clients.examples.ismcts import SmallSearch

    root = Path(__file__).resolve().parents[2]
    example = (root / "clients/examples/ismcts.py").read_text()
    assert len(example.splitlines()) <= 70
    assert f"```python\n{example}```" in (root / "docs/search.md").read_text()
    seats = [SdkSeat(SmallSearch(), "small"), *(SdkSeat(HeuristicBot(), f"h{i}") for i in range(3))]
    record = asyncio.run(play_match(seats, Rules(target=30), 8, settings=LOADED))
    assert record.status.value == "finished" and record.faults == []
