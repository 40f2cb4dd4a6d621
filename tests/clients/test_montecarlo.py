"""The Monte Carlo bot through the referee: every preset and some option mixes under a 20 ms budget
with no fault (no timeout), concurrent matches served by one object, and its search itself."""

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

from clients.bots.heuristic import HeuristicBot
from clients.bots.montecarlo import MonteCarloBot, ThreadedMonteCarloBot
from clients.view import view_of
from ladder.bots.inprocess import SdkSeat
from referee.match import MatchSettings, play_match
from referee.rules import PRESETS, Match, Phase, Rules

FAST = MatchSettings(budget_ms=20, bank_ms=200)
LOADED = MatchSettings(budget_ms=20, bank_ms=200, grace_ms=10_000)  # the bot is told 20 ms; load is forgiven
MIXES = {
    "five-kitty-discard": Rules(players=5, removed_cards="2C", kitty="first-points", kitty_discard=True, target=40),
    "three-scatter": Rules(players=3, pass_count=4, pass_cycle="left right scatter", target=40),
    "mix-call": Rules(pass_cycle="call mix", moon="shooter-chooses", sun_points=52, target=40),
}
RULESETS = {**{k: Rules.preset(k, target=40) for k in PRESETS}, **MIXES}


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.slow
def test_montecarlo_plays_every_ruleset_through_the_referee_without_a_timeout(name):
    rules = RULESETS[name]
    mc = cpu_timed(MonteCarloBot)(seed=1)
    seats = [SdkSeat(mc, "mc")] + [SdkSeat(HeuristicBot(), f"h{i}") for i in range(rules.players - 1)]
    # The bot shares this process's heap with every test run before it: a full collection of that
    # heap (tens of ms late in the suite) would be charged to the bot's 20 ms. Frozen, the
    # collector sees only what the match allocates, as in a bot's own process.
    gc.collect()
    gc.freeze()
    try:
        # The referee's grace covers the machine's load (the answer's wall time); the bot's own
        # spend, on its CPU clock, is held to the budget the referee tells it and its usual grace.
        record = asyncio.run(play_match(seats, rules, 3, settings=LOADED))
    finally:
        gc.unfreeze()
    assert record.status.value == "finished"
    assert record.faults == []
    assert mc.spent_ms and max(mc.spent_ms) < FAST.budget_ms + FAST.grace_ms, max(mc.spent_ms)
    assert all(s.time_bank_left_ms == LOADED.bank_ms for s in record.seats)  # never over budget


@pytest.mark.slow
def test_one_threaded_bot_serves_concurrent_matches():
    bot = ThreadedMonteCarloBot(seed=2)
    rules = Rules(target=30)

    async def main():
        games = []
        for g in range(3):
            seats = [SdkSeat(bot, "mc")] + [SdkSeat(HeuristicBot(), f"h{i}") for i in range(3)]
            games.append(play_match(seats, rules, 10 + g, settings=FAST))
        return await asyncio.gather(*games)

    for record in asyncio.run(main()):
        assert record.status.value == "finished" and record.faults == []


class _Ticking:
    """A clock that moves on by ``step`` each time it is read."""

    def __init__(self, step: float) -> None:
        self.step, self.now = step, 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_search_values_every_legal_card_within_its_time():
    """Mid hand, the bot's card is among the legal ones, its means cover every legal card, and it
    spends about its share of the clock."""
    rng = random.Random(4)
    m = Match(Rules(), 4)
    while not (m.phase is Phase.PLAY and len(m.hand.tricks) == 4 and m.to_move[0] == 0):
        random_step(m, rng)
    view = view_of(m.observation(0), "t", ("a", "b", "c", "d"), 100, 1000)
    ticks = _Ticking(0.0001)  # every reading of the clock is a tenth of a millisecond on: no load counts
    bot = MonteCarloBot(seed=1, clock=ticks)
    start = ticks()
    card, means, worlds = bot.search(view, start)
    spent = ticks.now - start
    assert card in view.legal
    assert set(means) == set(view.legal) or len(view.legal) == 1
    assert worlds > 10
    # It stops at its deadline: past it by the readings of one world's rollouts at most.
    assert bot.think_seconds(view) <= spent < bot.think_seconds(view) + 0.0001 * 20


def test_the_small_monte_carlo_bot_in_docs_is_the_example_file_and_plays():
    from clients.examples.montecarlo import SmallMonteCarlo

    root = Path(__file__).resolve().parents[2]
    example = (root / "clients/examples/montecarlo.py").read_text()
    assert len(example.splitlines()) <= 45
    assert f"```python\n{example}```" in (root / "docs/sdk.md").read_text()
    seats = [SdkSeat(SmallMonteCarlo(), "small"), *(SdkSeat(HeuristicBot(), f"h{i}") for i in range(3))]
    record = asyncio.run(play_match(seats, Rules(target=30), 8, settings=FAST))
    assert record.status.value == "finished" and record.faults == []


def test_the_view_samples_worlds():
    m = Match(Rules(), 2)
    rng = random.Random(2)
    while not (m.phase is Phase.PLAY and len(m.hand.tricks) == 3):
        random_step(m, rng)
    seat = m.to_move[0]
    view = view_of(m.observation(seat), "t", ("a", "b", "c", "d"), 100, 1000)
    worlds = view.sample_worlds(5, random.Random(0))
    assert len(worlds) == 5 and all(w.hands[seat] == view.hand.mask for w in worlds)


@pytest.mark.slow
def test_the_strength_and_rollout_benches_run_and_report():
    import json
    import subprocess

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [
            sys.executable,
            str(root / "bench/strength.py"),
            "--bot",
            "random",
            "--deals",
            "2",
            "--workers",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=True,
    )
    (row,) = json.loads(out.stdout)
    assert row["deals"] == 2 and row["matches"] == 8 and row["hands"] >= 8
    assert row["ci95"][0] <= row["vs_field_per_hand"] <= row["ci95"][1]
    assert row["timeouts"] == 0
    out = subprocess.run(
        [sys.executable, str(root / "bench/rollout.py"), "--seconds", "0.2", "--engine", "loaded", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        check=True,
    )
    r = json.loads(out.stdout)
    assert all(v > 0 for v in r["rollouts_per_second"].values())
