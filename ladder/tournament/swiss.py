"""Swiss pairing for tables of any size: each round's tables drawn from the standings so far.

Pure functions, no I/O; docs/tournaments.md states the rule for people:

1. Byes. Where the field does not fill whole tables, ``len(field) mod players`` bots sit the round
   out: those with the fewest byes so far, the lowest in the standings among them.
2. Tables. The others are seated in standings order, best first, into tables of ``players``: the
   first bot not yet seated takes the highest-placed bots it can, table after table. Among every way
   of seating the round, the one chosen has the fewest pairs meeting again (a pair that met twice
   before counts twice); among those, the first in standings order. So no pair meets again while a
   seating without a rematch exists, and the top of the standings sits together as soon as they
   may, which by the last rounds means the leaders meet each other.

The search visits the seatings in standings order and keeps the first of least rematches; it gives
up improving after ``SEARCH_LIMIT`` steps (never reached by a field of 32 at tables of four in its
tests; the seating kept is the best found, the same on every run).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence

__all__ = ["SEARCH_LIMIT", "met_counts", "swiss_byes", "swiss_tables"]

SEARCH_LIMIT = 200_000  # tables tried in one round's search


def met_counts(tables: Sequence[Sequence[str]]) -> Counter[frozenset[str]]:
    """How often each pair of bots has shared a table."""
    met: Counter[frozenset[str]] = Counter()
    for t in tables:
        for a, b in itertools.combinations(t, 2):
            met[frozenset((a, b))] += 1
    return met


def swiss_byes(ranked: Sequence[str], players: int, byes: Mapping[str, int]) -> list[str]:
    """The bots that sit this round out: fewest byes first, the lowest-ranked among equals."""
    count = len(ranked) % players
    if count == 0:
        return []
    by_need = sorted(range(len(ranked)), key=lambda i: (byes.get(ranked[i], 0), -i))
    return [ranked[i] for i in sorted(by_need[:count])]


def swiss_tables(ranked: Sequence[str], players: int, met: Mapping[frozenset[str], int]) -> list[tuple[str, ...]]:
    """The round's tables for ``ranked`` (best first; a multiple of ``players``): the seating with the
    fewest rematches, the first in standings order among those (module doc)."""
    if players < 2:
        raise ValueError(f"a table needs at least 2 players, not {players}")
    if len(ranked) % players:
        raise ValueError(f"{len(ranked)} bots do not fill tables of {players}: give the rest byes first")
    if len(set(ranked)) != len(ranked):
        raise ValueError("a bot is ranked twice")
    best: list[tuple[str, ...]] | None = None
    best_cost = float("inf")
    steps = 0

    def cost_with(table: Sequence[str], bot: str) -> int:
        return sum(met.get(frozenset((bot, o)), 0) for o in table)

    def search(left: list[str], tables: list[tuple[str, ...]], cost: int) -> bool:
        """Extend ``tables`` with ``left``; True once a seating of no rematch is found (nothing beats it)."""
        nonlocal best, best_cost, steps
        if not left:
            if cost < best_cost:
                best, best_cost = list(tables), cost
            return cost == 0
        head, rest = left[0], left[1:]
        for others in itertools.combinations(range(len(rest)), players - 1):
            steps += 1
            if steps > SEARCH_LIMIT and best is not None:
                return True
            table = [head]
            added = 0
            for i in others:
                added += cost_with(table, rest[i])
                table.append(rest[i])
            if cost + added >= best_cost:
                continue
            chosen = set(others)
            if search([b for i, b in enumerate(rest) if i not in chosen], [*tables, tuple(table)], cost + added):
                return True
        return False

    search(list(ranked), [], 0)
    assert best is not None
    return best
