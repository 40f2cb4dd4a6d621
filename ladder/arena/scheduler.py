"""Which tables the continuous ladder plays next: the ones that teach the most.

Each table is centred on one bot, taken in this order: new versions first (fewest games), then the
bots whose rating is least certain (widest 95% interval). Its opponents are the bots nearest to it
in rating (a close game says more about both than a rout). Each table is one deal played in every
rotation of its seats (duplicate deals), so the luck of the cards cancels out.

Pure: no I/O. ``next_batch`` returns ladder ``ScheduledMatch``es numbered from ``start``; their
seeds come from ``start`` alone, so a batch rebuilt after a crash is the same batch.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ladder.tournament.schedule import ScheduledMatch, match_seed, rotations

__all__ = ["Standing", "next_batch"]

NEW_GAMES = 12  # a version with fewer games than this is new: its tables come first


@dataclass(frozen=True)
class Standing:
    elo: float = 1500.0
    ci95: float = float("inf")
    games: int = 0


def _priority(name: str, s: Standing) -> tuple[int, float, float]:
    # New versions first (fewest games), then the widest intervals.
    new = s.games < NEW_GAMES
    return (0 if new else 1, s.games if new else 0.0, -s.ci95)


def next_batch(
    bots: Sequence[str],
    standings: Mapping[str, Standing],
    *,
    players: int,
    tables: int,
    start: int,
    rules: str,
    seed: int = 0,
    owners: Mapping[str, str] | None = None,
) -> list[ScheduledMatch]:
    """``tables`` tables of ``players`` bots (every rotation of each: duplicate deals), indices from ``start``.

    ``owners`` (bot -> participant; house bots left out) keeps two bots of one participant from one
    table while there are enough others: team-mates could otherwise play for each other."""
    pool = sorted(set(bots))
    if len(pool) < players:
        return []
    rng = random.Random(seed * 1_000_003 + start)
    st = {b: standings.get(b, Standing()) for b in pool}
    order = sorted(pool, key=lambda b: (_priority(b, st[b]), rng.random()))
    out: list[ScheduledMatch] = []
    index = start
    for t in range(tables):
        focus = order[t % len(order)]
        others = [b for b in pool if b != focus]
        # The nearest in rating, with a little chance among the next few so that pairings vary.
        others.sort(key=lambda b: abs(st[b].elo - st[focus].elo) + rng.uniform(0, 60))
        table = [focus, *_apart(others, focus, players - 1, owners or {})]
        rng.shuffle(table)
        deal_seed = match_seed(seed, start, t, 0)
        for rot, seats in enumerate(rotations(table)):
            out.append(
                ScheduledMatch(
                    index=index, round=start, table=t, deal=0, rotation=rot, seed=deal_seed, seats=seats, rules=rules
                )
            )
            index += 1
    return out


def _apart(others: Sequence[str], focus: str, n: int, owners: Mapping[str, str]) -> list[str]:
    """The first ``n`` of ``others`` whose participant has no bot at the table yet; the nearest of the
    rest when that leaves the table short."""
    taken = {owners[focus]} if focus in owners else set()
    chosen: list[str] = []
    for b in others:
        if len(chosen) == n:
            break
        owner = owners.get(b)
        if owner is None or owner not in taken:
            chosen.append(b)
            if owner is not None:
                taken.add(owner)
    chosen += [b for b in others if b not in chosen][: n - len(chosen)]
    return chosen
