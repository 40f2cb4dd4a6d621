"""Is B better than A? Both play the same duplicate deals, in the same seats, against the same field,
and a sequential test (``ladder.ratings.sprt``) decides as soon as it can.

Each deal is played ``players`` times by A (once from every seat, the field in the other seats in
a fixed order) and as many times by B in the same seats: ``2 × players`` matches. A deal's paired
difference is A's mean points per hand over its rotations minus B's (positive: B took fewer). The
comparison is stored as a tournament (format ``compare``), so its matches show on the ladder; when
the test decides, the deals not played are dropped from its schedule and it is finished.

The test's state after each deal is stored (``sprt_steps``), and a comparison stopped at any moment
(Ctrl-C, a kill) is resumed like any tournament: ``play_comparison`` rebuilds the test from the
recorded matches (the deals in the order their last match was saved) and plays the rest. Once the
test has decided, no later deal is added to it (the matches of deals under way are recorded all
the same).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from dataclasses import field as _field
from pathlib import Path
from typing import Any

from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT
from ladder.bots.registry import BotEntry, add_bots
from ladder.ratings.sprt import SPRT, SPRTSpec, Verdict
from ladder.store import Store
from ladder.tournament.run import RunSummary, finish_early, get_tournament, play_tournament
from ladder.tournament.schedule import ScheduledMatch, match_id, match_seed, rotations
from ladder.venues.venue import Venue
from referee.match import MatchSettings
from referee.record import MatchRecord
from referee.rules import Rules

__all__ = ["CompareResult", "CompareSpec", "compare_spec_of", "create_comparison", "play_comparison"]


@dataclass(frozen=True)
class CompareSpec:
    """What to compare: ``a`` (the reference) and ``b`` (the candidate) against ``field`` (one bot
    per other seat, distinct names), and the test: H0 mean difference ``h0``, H1 ``h1`` (B better
    by, in points per hand, or in normalised Elo with ``scale="nelo"``), error rates, and at most
    ``max_deals`` deals."""

    a: str
    b: str
    field: tuple[str, ...]
    rules: str = "standard"
    h0: float = 0.0
    h1: float = 0.5
    alpha: float = 0.05
    beta: float = 0.05
    max_deals: int = 1000
    seed: int = 0
    settings: MatchSettings = _field(default_factory=MatchSettings)
    scale: str = "points"  # or "nelo"

    @property
    def test(self) -> SPRT:
        """A new running test of the spec's hypotheses (``SPRTError`` if they cannot be tested)."""
        return SPRT(self.h0, self.h1, self.alpha, self.beta, self.scale)

    @property
    def sprt(self) -> SPRTSpec:
        """The test as ``--sprt`` writes it."""
        return SPRTSpec(self.h0, self.h1, self.alpha, self.beta, self.scale)


@dataclass
class CompareResult:
    """How a comparison ended: the test (its deals, LLR, mean difference and interval), its verdict,
    the matches recorded (by this run and before it) and what this run played (``summary``)."""

    tournament_id: int
    test: SPRT
    matches: int = 0
    summary: RunSummary | None = None

    @property
    def verdict(self) -> Verdict:
        """``H1``, ``H0``, or ``inconclusive`` when ``max_deals`` ran out first."""
        v = self.test.verdict
        return "inconclusive" if v == "continue" else v


def _schedule(spec: CompareSpec, players: int, rules_text: str) -> list[ScheduledMatch]:
    out: list[ScheduledMatch] = []
    for deal in range(spec.max_deals):
        seed = match_seed(spec.seed, 0, 0, deal)
        for rotation in range(players):
            for table, bot in enumerate((spec.a, spec.b)):
                seats = rotations((bot, *spec.field))[rotation]
                out.append(ScheduledMatch(len(out), 0, table, deal, rotation, seed, seats, rules_text))
    return out


def create_comparison(store: Store, entries: Sequence[BotEntry], spec: CompareSpec) -> int:
    """Register the bots and store the comparison's whole schedule (as a tournament); its id."""
    rules = Rules.parse(spec.rules)
    names = [spec.a, spec.b, *spec.field]
    if len(spec.field) != rules.players - 1:
        raise ValueError(
            f"the rules need a field of {rules.players - 1} bots besides the one compared, not {len(spec.field)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"the bots compared and the field must be distinct bots: {', '.join(names)}")
    if spec.max_deals < 1:
        raise ValueError("a comparison needs at least one deal")
    _ = spec.test  # the test's own checks, before anything is stored
    by_name = {e.name: e for e in entries}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ValueError(f"no entry for {', '.join(missing)}")
    text = str(rules)
    with store.db.atomic():
        add_bots(store, [by_name[n] for n in names])
        settings = {
            **asdict(spec.settings),
            "compare": {
                "a": spec.a,
                "b": spec.b,
                "field": list(spec.field),
                "h0": spec.h0,
                "h1": spec.h1,
                "alpha": spec.alpha,
                "beta": spec.beta,
                "scale": spec.scale,
            },
        }
        tid = store.tournaments.insert(
            format="compare",
            rules=text,
            seed=spec.seed,
            rounds=1,
            deals=spec.max_deals,
            gauntlet=None,
            bots=json.dumps([by_name[n].to_dict() for n in sorted(names)]),
            settings=json.dumps(settings),
        )
        store.tournaments.insert_schedule(tid, _schedule(spec, rules.players, text))
    return tid


def compare_spec_of(store: Store, tournament_id: int) -> CompareSpec:
    """The spec a comparison was stored with (``ValueError`` if the tournament is none; ``KeyError`` if
    there is no such tournament)."""
    info = get_tournament(store, tournament_id)
    row = store.tournaments.get(tournament_id)
    assert row is not None  # get_tournament found it
    stored = json.loads(row.settings).get("compare") if info.format == "compare" else None
    if not isinstance(stored, dict):
        raise ValueError(f"tournament {tournament_id} is a {info.format}, not a comparison")
    return CompareSpec(
        a=stored["a"],
        b=stored["b"],
        field=tuple(stored["field"]),
        rules=info.rules,
        h0=float(stored["h0"]),
        h1=float(stored["h1"]),
        alpha=float(stored["alpha"]),
        beta=float(stored["beta"]),
        max_deals=info.deals,
        seed=info.seed,
        settings=info.settings,
        scale=str(stored.get("scale", "points")),  # a comparison stored before there were scales
    )


class _Deals:
    """The deals of a comparison as their matches are recorded: each deal's points per hand of A
    and B, and the test, to which a deal is added once all its matches are in, until it decides
    (its state then stored)."""

    def __init__(self, store: Store, tournament_id: int, spec: CompareSpec, players: int) -> None:
        self.store, self.tid, self.spec, self.players = store, tournament_id, spec, players
        self.test = spec.test
        self.cells: dict[int, dict[str, list[float]]] = {}

    def seat(self, deal: int, bot: str, final_score: int, hands: int) -> bool:
        """One seat of one recorded match (those of the field are passed over); whether it completed its deal."""
        if bot not in (self.spec.a, self.spec.b):
            return False
        cell = self.cells.setdefault(deal, {self.spec.a: [], self.spec.b: []})
        cell[bot].append(final_score / max(1, hands))
        return all(len(v) == self.players for v in cell.values())

    def complete(self, deal: int) -> bool:
        """Add a complete deal to the test, unless it has decided; whether it was added."""
        cell = self.cells.pop(deal)
        if self.test.verdict != "continue":
            return False
        p = self.players
        self.test.add(sum(cell[self.spec.a]) / p - sum(cell[self.spec.b]) / p)
        return True

    def store_step(self) -> None:
        """The test's state now, stored."""
        t = self.test
        with self.store.db.atomic():
            self.store.tournaments.add_sprt_step(
                self.tid,
                deals=t.n,
                mean=t.mean,
                sd=t.sd,
                llr=t.llr,
                lower=t.lower,
                upper=t.upper,
                verdict=t.verdict,
            )

    def rebuild(self) -> None:
        """The test from the recorded matches: the complete deals in the order their last match was
        saved, each step not yet stored stored (a run killed between a save and its step)."""
        rows = list(self.store.tournaments.seat_results(self.tid))
        last_saved: dict[int, int] = {}
        for r in rows:
            last_saved[r["deal"]] = max(last_saved.get(r["deal"], 0), r["saved"])
        done: list[int] = []
        for r in sorted(rows, key=lambda r: r["saved"]):
            if self.seat(r["deal"], r["bot"], r["final_score"], r["hands"]):
                done.append(r["deal"])
        stored = {s.deals for s in self.store.tournaments.sprt_steps(self.tid)}
        for deal in sorted(done, key=lambda d: last_saved[d]):
            if self.complete(deal) and self.test.n not in stored:
                self.store_step()


async def play_comparison(
    store: Store,
    tournament_id: int,
    spec: CompareSpec | None = None,
    *,
    concurrency: int = 4,
    on_deal: Callable[[SPRT], None] | None = None,
    on_record: Callable[[MatchRecord], None] | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    log_dir: Path | str | None = None,
    workers: int | None = None,
    venue: Venue | None = None,
    **options: Any,
) -> CompareResult:
    """Play the comparison's deals until the test decides or they run out; a comparison played before
    (killed, interrupted) goes on from its recorded matches, and one whose test had decided plays
    nothing. ``spec``: the stored one by default (``compare_spec_of``). ``on_deal`` sees the test after
    each deal it adds (for live progress), ``on_record`` each match recorded; ``workers``, ``venue`` and
    ``options`` (``bots``, ``force``, ``sandbox``...) as for ``play_tournament``."""
    spec = spec if spec is not None else compare_spec_of(store, tournament_id)
    info = get_tournament(store, tournament_id)
    deals = _Deals(store, tournament_id, spec, Rules.parse(info.rules).players)
    deals.rebuild()
    test = deals.test
    result = CompareResult(tournament_id, test, matches=info.done, summary=RunSummary(tournament_id))
    if test.verdict != "continue":  # decided before the run that recorded it was stopped
        if info.pending or info.status != "finished":
            finish_early(store, tournament_id, force=bool(options.get("force", False)))
        return result
    deal_of = {match_id(tournament_id, m.index): m.deal for m in store.tournaments.pending(tournament_id)}

    def recorded(record: MatchRecord) -> None:
        result.matches += 1
        deal = deal_of.get(record.match_id)
        if deal is not None:
            complete = False
            for s in record.seats:
                complete = deals.seat(deal, s.bot, s.final_score, len(record.hands)) or complete
            if complete and deals.complete(deal):
                deals.store_step()
                if on_deal is not None:
                    on_deal(test)
        if on_record is not None:
            on_record(record)

    result.summary = await play_tournament(
        store,
        tournament_id,
        concurrency=concurrency,
        on_record=recorded,
        stop=lambda: test.verdict != "continue",
        startup_timeout=startup_timeout,
        log_dir=log_dir,
        workers=workers,
        venue=venue,
        **options,
    )
    if test.verdict != "continue":  # decided: the deals not played are not owed
        finish_early(store, tournament_id, force=bool(options.get("force", False)))
    return result
