"""A bot that floods every reply to the receive limit costs the referee linear time: the bots of the
other matches on the same event loop keep their pace (0 faults, latency within budget)."""

from __future__ import annotations

import sys
from pathlib import Path

from ladder.registry import BotEntry
from ladder.store import Store
from ladder.tournament import TournamentSpec, create_tournament, run_tournament
from referee.match import MatchSettings
from referee.record import FaultKind
from referee.report import latencies

HERE = Path(__file__).parent
# Every decision the flooding bot can be asked: passes, the dealer's call, plays and a kitty discard.
RULES = "standard,kitty=first-trick,hand_size=12,kitty_discard=true,pass_cycle=call,target=30"
BUDGET_MS = 250


def test_a_flooding_bot_costs_the_bots_of_other_matches_nothing(tmp_path: Path) -> None:
    bots = [BotEntry("flooding", command=f"{sys.executable} {HERE / 'bots' / 'flooding.py'} {{port}}"),
            *(BotEntry(name, command=f"python -m clients.bots.{module} --port {{port}}")
              for name, module in (("random", "random"), ("lowest", "lowest"), ("heuristic", "heuristic"),
                                   ("lowest-2", "lowest")))]
    # A fault limit the flooding bot never reaches: it is asked, and floods, every decision of its matches.
    settings = MatchSettings(budget_ms=BUDGET_MS, bank_ms=2000, max_faults=10_000)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=RULES, seed=3, settings=settings))
        summary = run_tournament(store, tid, concurrency=4)
        assert summary.played == 20 and summary.remaining == 0
        records = [store.load_match(m.match_id) for m in store.list_matches(tournament_id=tid)]
    flooded = {FaultKind.WRONG_PASS_COUNT, FaultKind.WRONG_DISCARD, FaultKind.WRONG_CALL, FaultKind.CARD_NOT_HELD,
               FaultKind.ILLEGAL_CARD}
    seen: set[FaultKind] = set()
    for rec in records:
        for f in rec.faults:
            assert rec.seats[f.seat].bot == "flooding", (rec.match_id, f)
            seen.add(f.kind)
        for s in rec.seats:
            if s.bot != "flooding":
                lat = latencies(rec, s.seat)
                assert lat and max(lat) < BUDGET_MS, (s.bot, max(lat))
    # Each kind of flood was refused: a pass and a discard of too many cards, a call of too many offsets, and
    # plays of a card not held or not legal (5, the 4 of clubs, repeated ~32,000 times).
    assert {FaultKind.WRONG_PASS_COUNT, FaultKind.WRONG_DISCARD, FaultKind.WRONG_CALL} <= seen <= flooded
