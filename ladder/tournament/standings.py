"""Who finished where at each table, and the standings of a tournament played in rounds.

Pure functions over results already recorded (``SeatResult`` rows, one per seat of a recorded
match), no I/O: the Swiss pairing and the knockout bracket both read them, and so do the progress
lines and the site.

A table is the matches of one round at one table: every bot of it sits in every one of them (each
deal in every rotation), so their points add up over the very same cards and compare directly.
A table's order: fewer forfeits first (a bot that forfeited a match placed last in it, whatever its
points), then fewer points over the table's matches, then the tie stands (equal places).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "SeatResult",
    "Standing",
    "TableResult",
    "bye_points",
    "match_points",
    "standings",
    "table_results",
]


@dataclass(frozen=True)
class SeatResult:
    """One seat of one recorded match of a tournament's schedule."""

    round: int
    table: int
    deal: int
    bot: str
    points: int  # the seat's final score in that match
    forfeit: bool
    hands: int  # hands the match lasted


@dataclass(frozen=True)
class TableResult:
    """One table of one round: its bots' points over every match of the table, and their order."""

    round: int
    table: int
    bots: tuple[str, ...]  # as seated in the schedule's first rotation
    points: Mapping[str, int]
    forfeits: Mapping[str, int]
    hands: int  # hands the table played in all (the same for each of its bots)
    deals: tuple[int, ...]  # the deals counted (a sudden-death deal is apart: see ``table_results``)

    def key(self, bot: str) -> tuple[int, int]:
        """What orders the table: forfeits, then points (less is better)."""
        return (self.forfeits[bot], self.points[bot])

    def order(self) -> list[str]:
        """The table's bots best first (ties in seating order)."""
        return sorted(self.bots, key=self.key)

    def place(self, bot: str) -> int:
        """1 for the best; tied bots share the better place."""
        mine = self.key(bot)
        return 1 + sum(1 for b in self.bots if self.key(b) < mine)

    def margin(self, bot: str) -> float:
        """The table's mean points less the bot's, per hand: above 0, better than the table."""
        mean = sum(self.points.values()) / len(self.bots)
        return (mean - self.points[bot]) / max(1, self.hands)


def table_results(results: Iterable[SeatResult], *, deals: int | None = None) -> list[TableResult]:
    """Each table's totals, in (round, table) order. ``deals``: count only the deals below it (a
    knockout's sudden-death deals come after the table's own and are read apart)."""
    totals: dict[tuple[int, int], dict[str, list[int]]] = {}  # by table, by bot: points, forfeits, hands
    dealt: dict[tuple[int, int], set[int]] = {}
    for r in results:
        if deals is not None and r.deal >= deals:
            continue
        key = (r.round, r.table)
        cell = totals.setdefault(key, {}).setdefault(r.bot, [0, 0, 0])
        cell[0] += r.points
        cell[1] += int(r.forfeit)
        cell[2] += r.hands
        dealt.setdefault(key, set()).add(r.deal)
    out = []
    for key in sorted(totals):
        cells = totals[key]
        out.append(
            TableResult(
                round=key[0],
                table=key[1],
                bots=tuple(cells),
                points={b: c[0] for b, c in cells.items()},
                forfeits={b: c[1] for b, c in cells.items()},
                # Every bot of a table sits in each of its matches: any one's hands are the table's.
                hands=max(c[2] for c in cells.values()),
                deals=tuple(sorted(dealt[key])),
            )
        )
    return out


def match_points(table: TableResult, bot: str) -> float:
    """A Swiss round's score for ``bot``: one for each table-mate it finished ahead of, a half for each
    it tied with (a table of four gives 3, 2, 1 and 0 when nobody ties)."""
    mine = table.key(bot)
    return sum(1.0 if mine < table.key(o) else 0.5 if mine == table.key(o) else 0.0 for o in table.bots if o != bot)


def bye_points(players: int) -> float:
    """What a bye scores in a Swiss round: half of what a table gives its winner, a middle finish."""
    return (players - 1) / 2


@dataclass(frozen=True)
class Standing:
    """One bot's place in a tournament played in rounds."""

    bot: str
    score: float  # match points over the rounds (byes included)
    margin: float  # the sum over its tables of the table's mean points less its own, per hand
    tables: int  # tables played
    byes: int
    seed: int  # its place in the seeding, 1 first

    def key(self) -> tuple[float, float, int]:
        """Standings order: more match points, then a larger margin, then the better seed."""
        return (-self.score, -self.margin, self.seed)


def standings(
    seeding: Sequence[str], tables: Iterable[TableResult], byes: Mapping[str, int], players: int
) -> list[Standing]:
    """Every bot of ``seeding`` (best seed first) in standings order; ``byes``: each bot's byes so far."""
    score = dict.fromkeys(seeding, 0.0)
    margin = dict.fromkeys(seeding, 0.0)
    played = dict.fromkeys(seeding, 0)
    for t in tables:
        for b in t.bots:
            if b in score:
                score[b] += match_points(t, b)
                margin[b] += t.margin(b)
                played[b] += 1
    for b, n in byes.items():
        if b in score:
            score[b] += n * bye_points(players)
    rows = [Standing(b, score[b], round(margin[b], 9), played[b], byes.get(b, 0), i + 1) for i, b in enumerate(seeding)]
    return sorted(rows, key=Standing.key)
