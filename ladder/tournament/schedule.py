"""Tournament schedules: which bots sit at which table, on which deal, in which seats.

Pure functions, no I/O. A schedule is a list of ``ScheduledMatch``; the tournament stores it and
plays it in any order (so it can be resumed), and everything here is deterministic in its inputs.

Tables. A round robin plays every group of ``players`` bots when there are few such groups
(C(n, k) <= ``max_tables``); beyond that it builds a balanced design greedily, so every pair of bots
shares a table about equally often and every bot plays about equally often. A gauntlet puts one
bot at every table against a pool, the pool balanced the same way.

Duplicate deals. Hearts has a lot of luck in the cards. Each table plays ``deals`` match seeds,
and each seed is replayed in every cyclic rotation of the seats: the engine deals hand h of a
match from (seed, h), and the dealer from h, so every bot plays the same cards from every seat.
Comparing a bot's result with the field's on the same (seed, seat) removes most of the luck of
the deal (ACPC's duplicate poker; chess's colour-reversed opening pairs).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "DEFAULT_MAX_TABLES",
    "FORMATS",
    "ScheduledMatch",
    "all_tables",
    "balanced_tables",
    "build_schedule",
    "gauntlet_tables",
    "match_id",
    "match_seed",
    "pair_counts",
    "partner_pairings",
    "rotations",
    "round_robin_tables",
]

# Up to this many groups a round robin plays every group (10 bots at 4 seats: 210 groups).
DEFAULT_MAX_TABLES: int = 210
FORMATS: tuple[str, ...] = ("round-robin", "gauntlet")


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of a schedule. ``seats`` are bot names by seat (seat 0 first)."""

    index: int  # position in the schedule, 0-based; unique within a tournament
    round: int
    table: int  # index of the table (group of bots) within its round
    deal: int  # index of the deal within the table
    rotation: int  # which cyclic rotation of the table's seating (0 = as drawn)
    seed: int  # the match seed: the same for every rotation of one deal
    seats: tuple[str, ...]
    rules: str  # the ruleset spec, as `hearts rules show` accepts it

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "round": self.round,
            "table": self.table,
            "deal": self.deal,
            "rotation": self.rotation,
            "seed": self.seed,
            "seats": list(self.seats),
            "rules": self.rules,
        }


def _check_pool(bots: Sequence[str], players: int) -> list[str]:
    names = list(bots)
    if len(set(names)) != len(names):
        dup = sorted(n for n, c in Counter(names).items() if c > 1)
        raise ValueError(f"a bot is listed twice: {', '.join(dup)}")
    if players < 2:
        raise ValueError(f"a table needs at least 2 players, not {players}")
    if len(names) < players:
        raise ValueError(
            f"{len(names)} bot(s) cannot fill a table of {players}: register more bots "
            f"or play a ruleset with fewer players"
        )
    return names


def all_tables(bots: Sequence[str], players: int = 4) -> list[tuple[str, ...]]:
    """Every group of ``players`` bots, in the order of ``bots``."""
    names = _check_pool(bots, players)
    return [tuple(g) for g in itertools.combinations(names, players)]


def balanced_tables(
    bots: Sequence[str], players: int = 4, *, meetings: int = 1, seed: int = 0
) -> list[tuple[str, ...]]:
    """Enough tables that every pair of bots meets about ``meetings`` times, balanced greedily.

    Each table starts with a bot that has played least, then adds the bot that has met the
    chosen ones least (ties: fewest games, then a seeded random draw). On these sizes this keeps
    every pair's count within one or two of every other's, and every bot's games within one or two.
    """
    names = _check_pool(bots, players)
    n, k = len(names), players
    count = math.ceil(meetings * n * (n - 1) / (k * (k - 1)))
    rng = random.Random(f"balanced:{seed}:{n}:{k}")
    games = dict.fromkeys(names, 0)
    met: Counter[tuple[str, str]] = Counter()
    tables: list[tuple[str, ...]] = []
    for _ in range(count):
        order = names[:]
        rng.shuffle(order)  # the random tie-break: stable sort keeps this order among equals
        first = min(order, key=lambda b: games[b])
        table = [first]
        while len(table) < k:
            rest = [b for b in order if b not in table]
            best = min(
                rest,
                key=lambda b: (sum(met[_pair(b, t)] for t in table), max(met[_pair(b, t)] for t in table), games[b]),
            )
            table.append(best)
        for a, b in itertools.combinations(table, 2):
            met[_pair(a, b)] += 1
        for b in table:
            games[b] += 1
        tables.append(tuple(table))
    tables = _improve_pairs(tables, met, rng)
    # Seat order within a table does not matter (every rotation is played); keep pool order.
    pos = {b: i for i, b in enumerate(names)}
    return [tuple(sorted(t, key=pos.__getitem__)) for t in tables]


def _improve_pairs(
    tables: list[tuple[str, ...]], met: Counter[tuple[str, str]], rng: random.Random, proposals: int = 40_000
) -> list[tuple[str, ...]]:
    """Hill-climb on Σ count² over pairs by swapping two bots between two tables.

    The greedy pass alone leaves some pairs unmet and others met twice (a perfect design is a
    Steiner system, which exists only for some n). A swap keeps every bot's number of games, so
    only the pair balance moves; a fixed number of seeded proposals keeps this fast and repeatable.
    """
    ts = [list(t) for t in tables]
    if len(ts) < 2:
        return tables
    for _ in range(proposals):
        i, j = rng.randrange(len(ts)), rng.randrange(len(ts))
        if i == j:
            continue
        a, b = rng.choice(ts[i]), rng.choice(ts[j])
        if a in ts[j] or b in ts[i]:
            continue
        rest_a = [x for x in ts[i] if x != a]
        rest_b = [x for x in ts[j] if x != b]
        change: Counter[tuple[str, str]] = Counter()
        for x in rest_a:
            change[_pair(a, x)] -= 1
            change[_pair(b, x)] += 1
        for x in rest_b:
            change[_pair(b, x)] -= 1
            change[_pair(a, x)] += 1
        delta = sum(_cost(met[p] + d) - _cost(met[p]) for p, d in change.items() if d)
        if delta <= 0:  # equal moves too: they walk plateaus towards better swaps
            for p, d in change.items():
                met[p] += d
            ts[i] = rest_a + [b]
            ts[j] = rest_b + [a]
    return [tuple(t) for t in ts]


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def round_robin_tables(
    bots: Sequence[str], players: int = 4, *, max_tables: int = DEFAULT_MAX_TABLES, meetings: int = 1, seed: int = 0
) -> list[tuple[str, ...]]:
    """Every group when C(n, players) <= max_tables, else a balanced design (see module doc)."""
    names = _check_pool(bots, players)
    if math.comb(len(names), players) <= max_tables:
        return all_tables(names, players) * max(1, meetings)
    return balanced_tables(names, players, meetings=meetings, seed=seed)


def gauntlet_tables(
    hero: str,
    pool: Sequence[str],
    players: int = 4,
    *,
    max_tables: int = DEFAULT_MAX_TABLES,
    meetings: int = 1,
    seed: int = 0,
) -> list[tuple[str, ...]]:
    """``hero`` at every table; the other seats drawn from ``pool`` as a round robin of k − 1."""
    if players < 3:
        raise ValueError(f"a gauntlet table needs at least 3 players, not {players} (rules allow 3 to 5)")
    others = [b for b in pool if b != hero]
    if len(others) < players - 1:
        raise ValueError(
            f"a gauntlet of {hero!r} at {players}-player tables needs at least "
            f"{players - 1} other bots, not {len(others)}"
        )
    groups = round_robin_tables(others, players - 1, max_tables=max_tables, meetings=meetings, seed=seed)
    return [(hero, *g) for g in groups]


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The cyclic rotations of a seating: each bot sits in each seat exactly once.

    Cyclic (not all k! orders) because each bot meets every seat and every deal once with the
    fewest matches; the bots' neighbours stay the same, which is what a table means in Hearts.
    """
    t = tuple(table)
    return [t[-r:] + t[:-r] if r else t for r in range(len(t))]


def partner_pairings(table: Sequence[str]) -> list[tuple[str, ...]]:
    """A table of four in its three pairings of partners (seats 0 & 2, 1 & 3): a with c, with b, with d."""
    a, b, c, d = table
    return [(a, b, c, d), (a, c, b, d), (a, b, d, c)]


def match_seed(tournament_seed: int, round_: int, table: int, deal: int) -> int:
    """A 62-bit match seed from the tournament seed and the deal's coordinates.

    Hashed (not ``seed + i``) so that two tournaments with nearby seeds share no deals; 62 bits so
    the value fits SQLite's signed 64-bit integers and any bot's int64 fields.
    """
    key = f"hearts-arena:{tournament_seed}:{round_}:{table}:{deal}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little") >> 2


def match_id(tournament_id: int, index: int) -> str:
    """The id of a tournament's scheduled match (``t1-000005``): deterministic, so the store's primary
    key refuses a second record of one scheduled match."""
    return f"t{tournament_id}-{index:06d}"


def build_schedule(
    bots: Sequence[str],
    fmt: str = "round-robin",
    *,
    rules: str = "standard",
    players: int = 4,
    rounds: int = 1,
    deals: int = 1,
    seed: int = 0,
    gauntlet: str | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    duplicate: bool = True,
    partners: bool = False,
) -> list[ScheduledMatch]:
    """The whole schedule: rounds × tables × deals × rotations matches.

    ``partners`` (rules.partnership: seats 0 & 2 against 1 & 3): a rotation keeps every bot opposite
    the same bot, so each table is played in its three pairings, every bot partnering each other once
    (a bot's result is otherwise its partner's too, and two partners could never be told apart).

    ``rounds`` repeats the table design (a balanced design continues across rounds so pairs stay
    balanced overall); ``deals`` is the number of seeds each table plays per round. With
    ``duplicate`` every seed is played in every rotation; without it each deal is played once, in
    rotation ``deal mod k`` (so seats still rotate across deals).

    Matches are ordered round, deal, rotation, table: consecutive matches sit at different tables,
    which spreads the load over the bots when several are played at once.
    """
    if rounds < 1 or deals < 1:
        raise ValueError("rounds and deals must be at least 1")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "gauntlet":
        if not gauntlet:
            raise ValueError("a gauntlet needs the bot that plays every table")
        if gauntlet not in bots:
            raise ValueError(f"gauntlet bot {gauntlet!r} is not among the bots: {', '.join(bots)}")
        design = gauntlet_tables(gauntlet, bots, players, max_tables=max_tables, meetings=rounds, seed=seed)
    else:
        design = round_robin_tables(bots, players, max_tables=max_tables, meetings=rounds, seed=seed)
    # The design was built for all rounds at once (meetings = rounds); cut it into rounds.
    per_round = math.ceil(len(design) / rounds)
    by_round = [design[r * per_round : (r + 1) * per_round] for r in range(rounds)]
    out: list[ScheduledMatch] = []
    for r, tables in enumerate(by_round):
        if partners:
            tables = [p for t in tables for p in partner_pairings(t)]
        rots = [rotations(t) for t in tables]
        for d in range(deals):
            for rot in range(players):
                for t, _table in enumerate(tables):
                    if not duplicate and rot != d % players:
                        continue
                    out.append(
                        ScheduledMatch(
                            index=len(out),
                            round=r,
                            table=t,
                            deal=d,
                            rotation=rot,
                            seed=match_seed(seed, r, t, d),
                            seats=rots[t][rot],
                            rules=rules,
                        )
                    )
    return out


def pair_counts(tables: Sequence[Sequence[str]]) -> Counter[tuple[str, str]]:
    """How often each (sorted) pair of bots shares a table."""
    c: Counter[tuple[str, str]] = Counter()
    for t in tables:
        for a, b in itertools.combinations(t, 2):
            c[_pair(a, b)] += 1
    return c


def _cost(count: int) -> int:
    # Convex and steep: one pair met three times costs more than two pairs met twice, so the
    # climb flattens the extremes first (plain squares left some 0-and-3 spreads).
    return count**3
