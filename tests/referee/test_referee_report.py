"""The summary and the replay render every ruleset, from a record read back from the store."""

from __future__ import annotations

import asyncio
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ladder.store import Store
from referee.match import play_match
from referee.report import percentile, replay, summary
from referee.rules import Observation, Rules
from referee.seats import InProcessSeat


class Randomly:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pass_cards(self, obs: Observation) -> Any:
        return self.rng.sample(obs.hand.cards, obs.rules.pass_count)

    def play_card(self, obs: Observation) -> Any:
        return self.rng.choice(obs.legal.cards)

    def choose_moon(self, obs: Observation) -> Any:
        return "subtract-from-shooter"

    def charge_cards(self, obs: Observation) -> Any:  # turbo_charging: one chargeable card, if held
        return [c for c in obs.hand if str(c) in ("AH", "QS", "JD", "10C")][:1]


@pytest.mark.parametrize(
    "spec",
    [
        "standard",
        "omnibus,moon=shooter-chooses",
        "standard,players=3",
        "standard,players=5",
        "standard,pass_cycle=mix",
        "spot,target=200",
        "standard,kitty=first-trick,hand_size=12",
        "turbo",
        "partnership",
        "partnership-individual,pass_cycle=across",
    ],
)
@pytest.mark.slow
def test_summary_and_replay_render_a_stored_match(spec: str, tmp_path: Path) -> None:
    rules = Rules.parse(spec)
    seats = [InProcessSeat(Randomly(s), f"bot{s}") for s in range(rules.players)]
    rec = asyncio.run(play_match(seats, rules, 3))
    with Store(tmp_path / "a.db") as store:
        store.save_match(rec)
        rec = store.load_match(rec.match_id)
    out = io.StringIO()
    console = Console(file=out, width=200)
    console.print(replay(rec))
    console.print(summary(rec))
    text = out.getvalue()
    assert text.count("\nHand ") == len(rec.hands)
    assert "♣" in text and "♥" in text and "Scores by hand" in text
    if rules.turbo_charging:  # 002 Turbo: each hand's charges, read back from the store, are shown
        assert all(len(h.charges) == rules.players for h in rec.hands) and any(
            c.cards for h in rec.hands for c in h.charges
        )
        assert text.count("charged") >= len(rec.hands)


def test_the_replay_says_the_clock_each_seat_played_under() -> None:
    from referee.match import MatchSettings, TimeControl

    seats = [InProcessSeat(Randomly(s), f"bot{s}") for s in range(4)]
    settings = MatchSettings(budget_ms=1000, bank_ms=10_000, grace_ms=50)
    clocks = [TimeControl(budget_ms=250.5, bank_ms=0), None, None, None]
    rec = asyncio.run(play_match(seats, Rules.parse("standard,target=30"), 3, settings=settings, time_controls=clocks))
    out = io.StringIO()
    Console(file=out, width=200).print(replay(rec))
    text = out.getvalue()
    assert (
        "seat 0 bot0: in the referee's process (trusted code); clock: budget 250.5 ms, bank 0 ms, grace 50 ms\n" in text
    )
    assert (
        "seat 1 bot1: in the referee's process (trusted code); clock: budget 1000 ms, bank 10000 ms, grace 50 ms\n"
        in text
    )


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (50.0, 95.0, 100.0)
    assert percentile([7.0], 95) == 7.0


def test_the_sun_shooters_choice_is_counted_and_the_replay_names_the_sun() -> None:
    from referee.report import latencies

    rules = Rules.parse(
        "standard,sun_points=26,moon=shooter-chooses,hand_size=2,pass_cycle=none,"
        "kitty=first-trick,pass_count=1,first_lead=left-of-dealer,target=30"
    )
    seats = [InProcessSeat(Randomly(s), f"bot{s}") for s in range(rules.players)]
    rec = asyncio.run(play_match(seats, rules, 3))
    suns = [h for h in rec.hands if h.sun is not None]
    assert suns and all(h.moon is None and h.moon_choice_latency_ms is not None for h in suns)
    for s in range(rules.players):
        asked = sum(1 for p in rec.plays if p.seat == s and p.latency_ms is not None)
        asked += sum(1 for h in rec.hands for p in h.passes if p.seat == s and p.latency_ms is not None)
        asked += sum(1 for h in suns if h.sun == s)
        assert len(latencies(rec, s)) == asked
    out = io.StringIO()
    Console(file=out, width=200).print(replay(rec))
    assert out.getvalue().count("shot the sun") == len(suns)


@pytest.mark.parametrize("spec", ["partnership", "partnership-individual"])
@pytest.mark.slow
def test_the_replay_and_summary_name_the_teams_and_their_totals(spec: str) -> None:
    """002 Partnership Hearts: both name who plays with whom, and each hand's team totals; the summary's
    standing gives each seat's team and team total beside the place the partners share."""
    rules = Rules.parse(spec)
    seats = [InProcessSeat(Randomly(s), f"bot{s}") for s in range(4)]
    rec = asyncio.run(play_match(seats, rules, 5))
    out = io.StringIO()
    Console(file=out, width=240).print(replay(rec))
    text = out.getvalue()
    assert f"teams ({rules.partnership}): bot0 & bot2 against bot1 & bot3" in text
    last = rules.team_totals(rec.hands[-1].totals)
    assert f"teams: bot0 & bot2 {last[0]}, bot1 & bot3 {last[1]}" in text
    out = io.StringIO()
    Console(file=out, width=240).print(summary(rec))
    text = out.getvalue()
    assert "team total" in text and f"{last[0]} : {last[1]}" in text
    plain = asyncio.run(play_match([InProcessSeat(Randomly(s), f"bot{s}") for s in range(4)], Rules(), 5))
    out = io.StringIO()
    Console(file=out, width=240).print(summary(plain), replay(plain))
    assert "team" not in out.getvalue()


def test_names_cut_to_fit_a_narrow_terminal_still_say_whose_seat_it_is() -> None:
    """Five bots, four of them heuristic-something, at 80 columns: each name in the trick table is cut
    at its end, after its seat's number, so ``heuris…`` never stands for several bots at once."""
    names = ["heuristic", "heuristic-2", "heuristic-3", "a-rather-long-name", "heuristic-4"]
    rules = Rules.parse("standard,players=5,target=20")
    rec = asyncio.run(play_match([InProcessSeat(Randomly(s), n) for s, n in enumerate(names)], rules, 3))
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(replay(rec))
    text = console.export_text()
    header = next(line for line in text.splitlines() if line.lstrip().startswith("trick"))
    cells = header.split()[2:7]  # the five seats' columns, after "trick" and "leader"
    assert [c.split(":")[0] for c in cells] == ["0", "1", "2", "3", "4"], header
    assert any(c.endswith("…") for c in cells), "the names were cut at 80 columns"
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+\d+\s+\d:", line)]  # the tricks
    assert len(rows) >= 10
    for row in rows:  # the leader: its number, then its name or the start of it
        seat, _, name = row[1].partition(":")
        assert names[int(seat)].startswith(name.rstrip("…")), row
