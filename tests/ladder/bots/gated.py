"""In-process bots that play as the lowest and heuristic bots do, and can freeze the harness they share a
process with at a chosen point, so that a test kills it there and not a moment later.

While a file ``gate`` in the current directory names a database, the first card asked for once that
database holds a recorded match of a round past the first writes ``held`` and sleeps: the whole
process stops with that round under way (later matches cannot be recorded), until it is killed."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from clients.bots.heuristic import HeuristicBot
from clients.bots.lowest import LowestBot
from clients.sdk import View
from referee.rules import Card

_GATE = Path("gate")


def _hold_in_round_two() -> None:
    if not _GATE.exists():
        return
    with sqlite3.connect(_GATE.read_text().strip(), timeout=10) as db:
        [(recorded,)] = db.execute("SELECT COUNT(match_id) FROM tournament_matches WHERE round >= 1").fetchall()
    if recorded:
        Path("held").write_text("held\n")
        while True:
            time.sleep(60)


class GatedLowest(LowestBot):
    def play_card(self, view: View) -> Card:
        _hold_in_round_two()
        return super().play_card(view)


class GatedHeuristic(HeuristicBot):
    def play_card(self, view: View) -> Card:
        _hold_in_round_two()
        return super().play_card(view)
