"""Tournaments played in rounds whose tables depend on the results: Swiss and knockout.

A round robin stores its whole schedule at creation. A Swiss or a knockout stores its first round
only; once every match of a round is recorded, ``next_round`` draws the next one from the stored
results (``ladder.tournament.swiss``, ``ladder.tournament.knockout``) and stores it. Everything it
reads is recorded, and it draws the same round from the same records, so a run killed at any moment
resumes where it was: a round drawn twice is the same round, and it is stored once (the insert and
the check that the round is missing are one transaction).

The seeding (the ladder's ratings at creation, then names) is stored with the tournament, so a
resume never reseeds from ratings that the tournament's own matches have moved since.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ladder.store import Store
from ladder.tournament.knockout import SUDDEN_DEATHS, deal_tables, knockout_round
from ladder.tournament.schedule import ScheduledMatch, match_seed, rotations
from ladder.tournament.standings import SeatResult, Standing, TableResult, standings, table_results
from ladder.tournament.swiss import met_counts, swiss_byes, swiss_tables

__all__ = [
    "STAGED_FORMATS",
    "Bracket",
    "BracketRound",
    "SwissState",
    "Played",
    "bracket",
    "bracket_of",
    "first_round",
    "next_round",
    "round_matches",
    "played_rounds",
    "swiss_of",
    "swiss_state",
    "table_matches",
]

STAGED_FORMATS: tuple[str, ...] = ("swiss", "knockout")


def table_matches(
    start: int, round_: int, table: int, seats: Sequence[str], deals: Sequence[int], seed: int, rules: str
) -> list[ScheduledMatch]:
    """One table's matches: each deal in every rotation, numbered from ``start``."""
    out: list[ScheduledMatch] = []
    for d in deals:
        deal_seed = match_seed(seed, round_, table, d)
        for rot, seating in enumerate(rotations(seats)):
            out.append(ScheduledMatch(start + len(out), round_, table, d, rot, deal_seed, seating, rules))
    return out


def round_matches(
    start: int, round_: int, tables: Sequence[Sequence[str]], deals: int, seed: int, rules: str
) -> list[ScheduledMatch]:
    """A round's matches ordered deal, rotation, table (consecutive matches at different tables)."""
    per_table = [table_matches(0, round_, t, seats, range(deals), seed, rules) for t, seats in enumerate(tables)]
    ordered = sorted((m for ms in per_table for m in ms), key=lambda m: (m.deal, m.rotation, m.table))
    return [_renumbered(m, start + i) for i, m in enumerate(ordered)]


def _renumbered(m: ScheduledMatch, index: int) -> ScheduledMatch:
    return ScheduledMatch(index, m.round, m.table, m.deal, m.rotation, m.seed, m.seats, m.rules)


def first_round(
    fmt: str, seeded: Sequence[str], players: int, *, deals: int, seed: int, rules: str, advance: int
) -> list[ScheduledMatch]:
    """Round 0 of a Swiss or a knockout for ``seeded`` (best first)."""
    if fmt == "swiss":
        byes = swiss_byes(list(seeded), players, {})
        field_ = [b for b in seeded if b not in byes]
        tables = deal_tables(field_, len(field_) // players)
    elif fmt == "knockout":
        tables = list(knockout_round(seeded, players, advance).tables)
    else:
        raise ValueError(f"{fmt!r} is not played in rounds drawn from results")
    return round_matches(0, 0, tables, deals, seed, rules)


# -- reading what was played ---------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """What a Swiss or a knockout has scheduled and recorded, as its next round is drawn from."""

    seeded: tuple[str, ...]  # best seed first
    players: int
    deals: int
    rounds: int
    advance: int
    seed: int
    rules: str
    schedule: list[tuple[ScheduledMatch, bool]]
    results: list[SeatResult]

    def seated(self, round_: int) -> list[tuple[str, ...]]:
        """The tables of a round as first seated (rotation 0 of its first deal), by table."""
        first: dict[int, tuple[str, ...]] = {}
        for m, _ in self.schedule:
            if m.round == round_ and m.rotation == 0 and m.table not in first:
                first[m.table] = m.seats
        return [first[t] for t in sorted(first)]


def played_rounds(store: Store, tid: int) -> Played:
    row = store.tournaments.get(tid)
    if row is None:
        raise KeyError(f"no tournament {tid} in {store.path}")
    settings = json.loads(row.settings)
    from referee.rules import Rules

    return Played(
        seeded=tuple(settings["seeding"]),
        players=Rules.parse(row.rules).players,
        deals=row.deals,
        rounds=row.rounds,
        advance=int(settings.get("advance") or 0),
        seed=row.seed,
        rules=row.rules,
        schedule=store.tournaments.schedule(tid),
        results=[
            SeatResult(r["round"], r["table_no"], r["deal"], r["bot"], r["final_score"], bool(r["forfeit"]), r["hands"])
            for r in store.tournaments.seat_results(tid)
        ],
    )


# -- Swiss ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwissState:
    """A Swiss after the rounds recorded: the standings, each round's tables and byes."""

    rounds_done: int
    rounds: int
    standings: list[Standing]
    tables: list[list[tuple[str, ...]]]  # by round: its tables as seated
    byes: list[list[str]]  # by round: who sat it out


def swiss_state(store: Store, tid: int) -> SwissState:
    """The standings of Swiss ``tid`` over its complete rounds."""
    return swiss_of(played_rounds(store, tid))


def _complete_rounds(p: Played) -> int:
    """Rounds whose every scheduled match is recorded, from the first."""
    done = 0
    rounds = sorted({m.round for m, _ in p.schedule})
    for r in rounds:
        if all(rec for m, rec in p.schedule if m.round == r):
            done = r + 1
        else:
            break
    return done


def swiss_of(p: Played) -> SwissState:
    done = _complete_rounds(p)
    tables = [p.seated(r) for r in range(max(done, max((m.round for m, _ in p.schedule), default=-1) + 1))]
    byes_by_round = [[b for b in p.seeded if all(b not in t for t in ts)] for ts in tables]
    byes: dict[str, int] = {}
    for r in range(done):
        for b in byes_by_round[r]:
            byes[b] = byes.get(b, 0) + 1
    results = table_results(r for r in p.results if r.round < done)
    return SwissState(done, p.rounds, standings(p.seeded, results, byes, p.players), tables, byes_by_round)


def _next_swiss(p: Played, state: SwissState, start: int) -> list[ScheduledMatch]:
    r = state.rounds_done
    ranked = [s.bot for s in state.standings]
    byes_so_far = {s.bot: s.byes for s in state.standings}
    byes = swiss_byes(ranked, p.players, byes_so_far)
    field_ = [b for b in ranked if b not in byes]
    met = met_counts([t for ts in state.tables[:r] for t in ts])
    tables = swiss_tables(field_, p.players, met)
    return round_matches(start, r, tables, p.deals, p.seed, p.rules)


# -- knockout ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BracketRound:
    """One round of a knockout: its field (best seed first), byes, tables and who went on."""

    round: int
    field: tuple[str, ...]
    byes: tuple[str, ...]
    tables: tuple[tuple[str, ...], ...]
    advance: int
    results: dict[int, TableResult] = dataclasses.field(default_factory=dict)  # by table, over its own deals
    orders: dict[int, list[str]] = dataclasses.field(default_factory=dict)  # by decided table: best first
    sudden_deaths: dict[int, int] = dataclasses.field(default_factory=dict)  # by table: sudden-death deals played
    going_on: tuple[str, ...] = ()  # once decided: byes, then each table's first places, then any fill

    @property
    def final(self) -> bool:
        return len(self.field) == len(self.tables[0]) and len(self.tables) == 1

    @property
    def decided(self) -> bool:
        return len(self.orders) == len(self.tables)


@dataclass(frozen=True)
class Bracket:
    """A knockout as far as it is recorded; ``winner`` once the final is decided."""

    rounds: list[BracketRound]
    players: int

    @property
    def winner(self) -> str | None:
        last = self.rounds[-1] if self.rounds else None
        return last.orders[0][0] if last is not None and last.final and last.decided else None

    def placings(self) -> list[str]:
        """Every bot best first: the final's order, then those out in each earlier round, the later
        out first, each round's by place at its table then margin then seed."""
        out: list[str] = []
        for br in reversed(self.rounds):
            if not br.decided:
                continue
            seed_of = {b: i for i, b in enumerate(br.field)}
            out_here = [b for b in br.field if b not in out and b not in br.going_on]
            if br.final:
                out_here = [b for b in br.orders[0] if b not in out]
            else:
                out_here.sort(key=lambda b: _out_key(br, b, seed_of))
            out.extend(out_here)
        return out


def _out_key(br: BracketRound, bot: str, seed_of: Mapping[str, int]) -> tuple[int, float, int]:
    for t, order in br.orders.items():
        if bot in order:
            return (order.index(bot) + 1, -br.results[t].margin(bot), seed_of[bot])
    return (0, 0.0, seed_of[bot])


def _table_order(table: TableResult, sudden: Sequence[SeatResult], seed_of: Mapping[str, int]) -> list[str]:
    """The table's bots best first: its own deals' order, ties by sudden-death points, then seed."""
    sd_points: dict[str, int] = {}
    for r in sudden:
        sd_points[r.bot] = sd_points.get(r.bot, 0) + r.points
    return sorted(table.bots, key=lambda b: (table.key(b), sd_points.get(b, 0), seed_of[b]))


def _tied_across(
    table: TableResult, sudden: Sequence[SeatResult], cut: int, seed_of: Mapping[str, int], deals_played: int
) -> bool:
    """Whether places ``cut`` and ``cut + 1`` stay tied after the sudden-death deals played."""
    if cut >= len(table.bots):
        return False
    sd: dict[str, int] = {}
    for r in sudden:
        sd[r.bot] = sd.get(r.bot, 0) + r.points
    order = sorted(table.bots, key=lambda b: (table.key(b), sd.get(b, 0), seed_of[b]))
    a, b = order[cut - 1], order[cut]
    return (table.key(a), sd.get(a, 0)) == (table.key(b), sd.get(b, 0)) and deals_played < SUDDEN_DEATHS


def bracket(store: Store, tid: int) -> Bracket:
    """Knockout ``tid`` as far as recorded."""
    return bracket_of(played_rounds(store, tid))


def bracket_of(p: Played) -> Bracket:
    rounds: list[BracketRound] = []
    field_ = list(p.seeded)
    last = max((m.round for m, _ in p.schedule), default=-1)
    for r in range(last + 1):
        plan = knockout_round(field_, p.players, p.advance)
        seed_of = {b: i for i, b in enumerate(field_)}
        matches = [(m, rec) for m, rec in p.schedule if m.round == r]
        own = table_results([x for x in p.results if x.round == r], deals=p.deals)
        by_table = {t.table: t for t in own}
        br = BracketRound(r, tuple(field_), plan.byes, plan.tables, plan.advance)
        for t in range(len(plan.tables)):
            sd_deals = {m.deal for m, _ in matches if m.table == t and m.deal >= p.deals}
            br.sudden_deaths[t] = len(sd_deals)
            table_done = all(rec for m, rec in matches if m.table == t)
            if not table_done or t not in by_table:
                continue
            sudden = [x for x in p.results if x.round == r and x.table == t and x.deal >= p.deals]
            if _tied_across(by_table[t], sudden, plan.advance, seed_of, len(sd_deals)):
                continue  # owes a sudden-death deal
            br.results[t] = by_table[t]
            br.orders[t] = _table_order(by_table[t], sudden, seed_of)
        # Sudden-death deals of tables not yet owing them keep their results (nothing else to do).
        for t, tr in by_table.items():
            br.results.setdefault(t, tr)
        if br.decided and not br.final:
            ahead = [b for order in br.orders.values() for b in order[: plan.advance]]
            going = list(plan.byes) + ahead
            if len(going) < p.players:
                rest = [b for b in field_ if b not in going]
                rest.sort(key=lambda b: _out_key(br, b, seed_of))
                going += rest[: p.players - len(going)]
            # The next round keeps the seeding order.
            going_on = tuple(sorted(going, key=seed_of.__getitem__))
            br = BracketRound(
                br.round, br.field, br.byes, br.tables, br.advance, br.results, br.orders, br.sudden_deaths, going_on
            )
            field_ = list(going_on)
        rounds.append(br)
    return Bracket(rounds, p.players)


def _next_knockout(p: Played, b: Bracket, start: int) -> list[ScheduledMatch]:
    cur = b.rounds[-1]
    if not cur.decided:
        # Every match is recorded but a table is tied across its cut: its next sudden-death deal.
        out: list[ScheduledMatch] = []
        for t, seats in enumerate(cur.tables):
            if t not in cur.orders:
                deal = p.deals + cur.sudden_deaths.get(t, 0)
                out += table_matches(start + len(out), cur.round, t, seats, [deal], p.seed, p.rules)
        return out
    if cur.final:
        return []
    plan = knockout_round(cur.going_on, p.players, p.advance)
    return round_matches(start, cur.round + 1, plan.tables, p.deals, p.seed, p.rules)


# -- the next round ------------------------------------------------------------------------------


def next_round(store: Store, tid: int, *, keep: bool = True) -> list[ScheduledMatch]:
    """Draw and store what comes next of Swiss or knockout ``tid`` once everything scheduled is
    recorded: its next round, or a knockout table's sudden-death deal; [] while matches are pending,
    and once the tournament is complete. ``keep=False`` draws it without storing it."""
    with store.db.atomic():  # read and insert in one transaction: two runners never both add a round
        p = played_rounds(store, tid)
        if any(not rec for _, rec in p.schedule):
            return []
        start = 1 + max((m.index for m, _ in p.schedule), default=-1)
        row = store.tournaments.get(tid)
        assert row is not None
        if row.format == "swiss":
            state = swiss_of(p)
            if state.rounds_done >= p.rounds:
                return []
            matches = _next_swiss(p, state, start)
        else:
            matches = _next_knockout(p, bracket_of(p), start)
        if keep:
            store.tournaments.insert_schedule(tid, matches)
    return matches
