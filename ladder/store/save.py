"""The save of a scheduled match: its record, its schedule row marked done and its live Elo change,
in ONE transaction, whatever venue played it (this process, a worker process, a cluster).

A scheduled match is pending exactly while its ``match_id`` is NULL, and it is set only here, so
killing a process at any moment loses no completed match and records none twice.
"""

from __future__ import annotations

import sqlite3

from ladder.ratings.fit import ELO_BASE, live_elo_update
from ladder.ratings.leaderboard import live_elo
from ladder.store import Store
from referee.record import MatchRecord

__all__ = ["LIVE_ELO_K", "AlreadyRecorded", "save_scheduled"]

LIVE_ELO_K: float = 32.0


class AlreadyRecorded(RuntimeError):
    """Another process recorded this scheduled match first: its record stands, this one is dropped."""


def save_scheduled(store: Store, tid: int, index: int, record: MatchRecord, k: float = LIVE_ELO_K) -> None:
    """Save a match record, mark its scheduled match done and store its live Elo change: one transaction."""
    with store.db.atomic():
        try:
            store.save_match(record)
        except sqlite3.IntegrityError:
            if store.has_match(record.match_id):  # another process saved this scheduled match
                raise AlreadyRecorded(f"tournament {tid} match {index} is already recorded") from None
            raise
        if not store.tournaments.mark_recorded(tid, index, record.match_id):
            # another process recorded it first: roll the whole match back
            raise AlreadyRecorded(f"tournament {tid} match {index} is already recorded")
        players = [s.bot for s in record.seats]
        ids = [store.bot_id(p) for p in players]
        # Over every match of this ruleset: live Elo carries across tournaments, never across
        # rulesets (a ladder is per ruleset).
        current = live_elo(store, bots=players, rules=record.rules)
        before = {p: current.get(p, ELO_BASE) for p in players}
        # Places, not scores: a forfeiter places last whatever its substitutes scored.
        after = live_elo_update(before, players, [float(s.place) for s in record.seats], k=k)
        store.tournaments.add_live_elo(
            record.match_id, k, [(i, before[p], after[p] - before[p]) for p, i in zip(players, ids)]
        )
