"""A knockout of tables: the top places of each table go on, round after round, to one final table.

Pure functions, no I/O; docs/tournaments.md states the rule for people:

- Seeding: the ladder's rating where a bot has one (highest first), then the bots without one in
  name order. Seed 1 is the best.
- A round: where the field does not fill whole tables, the best seeds sit it out and go on (a bye);
  the others are dealt into tables by seed like a serpentine (table 1 gets seeds 1, 2T, 2T+1, ...,
  table 2 seeds 2, 2T-1, ...), so every table is as strong as the others.
- Going on: the first ``advance`` places of each table (by the table's order: fewer forfeits, then
  fewer points over the table's deals in every rotation). Where the places ``advance`` and
  ``advance + 1`` are tied, the table plays a sudden-death deal (one more deal, every rotation) and
  the tied bots are ordered by their points in it; up to ``SUDDEN_DEATHS`` deals, then by seed.
- Where the bots going on could not fill a table (a field of six at four seats sends one from its
  only table and two byes), the best of the others fill it: by place, then by margin (the table's
  mean points less theirs, per hand), then seed.
- The final: once the field fits one table, it plays for every place; a tie for first goes to
  sudden death the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "SUDDEN_DEATHS",
    "KnockoutRound",
    "bracket_sizes",
    "deal_tables",
    "default_advance",
    "knockout_round",
    "seeding",
]

SUDDEN_DEATHS = 3  # sudden-death deals a tie may take before the seeding decides it


def default_advance(players: int) -> int:
    """The places of each table that go on when none are given: half the table (at least one)."""
    return max(1, players // 2)


def seeding(bots: Sequence[str], ratings: Mapping[str, float]) -> list[str]:
    """The bots best seed first: rated ones by rating (ties by name), then the others by name."""
    rated = sorted((b for b in bots if b in ratings), key=lambda b: (-ratings[b], b))
    return rated + sorted(b for b in bots if b not in ratings)


@dataclass(frozen=True)
class KnockoutRound:
    """One round of the bracket: who sits out (going on at once) and the tables of the others."""

    byes: tuple[str, ...]
    tables: tuple[tuple[str, ...], ...]
    advance: int  # places of each table that go on (the final: 1, its winner)

    @property
    def final(self) -> bool:
        return not self.byes and len(self.tables) == 1 and self.advance == 1


def _check(players: int, advance: int) -> None:
    if players < 2:
        raise ValueError(f"a table needs at least 2 players, not {players}")
    if not 1 <= advance < players:
        raise ValueError(f"advance must be from 1 to {players - 1} at tables of {players}, not {advance}")


def deal_tables(seeded: Sequence[str], tables: int) -> list[tuple[str, ...]]:
    """``seeded`` (best first) dealt into ``tables`` tables like a serpentine: 1..T, then T..1, ..."""
    out: list[list[str]] = [[] for _ in range(tables)]
    for i, bot in enumerate(seeded):
        lap, pos = divmod(i, tables)
        out[pos if lap % 2 == 0 else tables - 1 - pos].append(bot)
    return [tuple(t) for t in out]


def knockout_round(field: Sequence[str], players: int, advance: int) -> KnockoutRound:
    """The round for ``field`` (best seed first): the final when it fits one table, else byes for the
    best seeds where the field does not fill whole tables, and the others dealt into tables."""
    _check(players, advance)
    if len(field) < players:
        raise ValueError(f"{len(field)} bots cannot fill a table of {players}")
    if len(field) == players:
        return KnockoutRound((), (tuple(field),), 1)
    tables, rest = divmod(len(field), players)
    byes, seated = tuple(field[:rest]), list(field[rest:])
    return KnockoutRound(byes, tuple(deal_tables(seated, tables)), advance)


def bracket_sizes(bots: int, players: int, advance: int) -> list[int]:
    """The field of each round, the final's last (16 bots at four seats, two going on: 16, 8, 4)."""
    _check(players, advance)
    if bots < players:
        raise ValueError(f"a knockout of {bots} bots cannot fill a table of {players}")
    sizes = [bots]
    while sizes[-1] > players:
        m = sizes[-1]
        tables, rest = divmod(m, players)
        sizes.append(max(players, rest + tables * advance))
    return sizes
