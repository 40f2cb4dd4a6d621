"""Is B better than A? Both play the same duplicate deals, in the same seats, against the same field,
and a sequential test (``ladder.ratings.sprt``) decides as soon as it can.

Each deal is played ``players`` times by A (once from every seat, the field in the other seats in
a fixed order) and as many times by B in the same seats: ``2 × players`` matches. A deal's paired
difference is A's mean points per hand over its rotations minus B's (positive: B took fewer). The
comparison is stored as a tournament (format ``compare``), so its matches show on the ladder; when
the test decides, the deals not played are dropped from its schedule and it is finished.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from dataclasses import field as _field
from pathlib import Path

from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT
from ladder.bots.registry import BotEntry, add_bots
from ladder.ratings.sprt import SPRT, Verdict
from ladder.store import Store
from ladder.tournament.run import get_tournament, play_tournament
from ladder.tournament.schedule import ScheduledMatch, match_seed, rotations
from ladder.venues.venue import Venue
from referee.match import MatchSettings
from referee.record import MatchRecord
from referee.rules import Rules

__all__ = ["CompareResult", "CompareSpec", "create_comparison", "play_comparison"]


@dataclass(frozen=True)
class CompareSpec:
    """What to compare: ``a`` (the reference) and ``b`` (the candidate) against ``field`` (one bot
    per other seat, distinct names), and the test: H0 mean difference ``h0``, H1 ``h1`` (points per
    hand, B better by), error rates, and at most ``max_deals`` deals."""

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


@dataclass
class CompareResult:
    """How a comparison ended: the test (its deals, LLR, mean difference and interval) and its verdict."""

    tournament_id: int
    test: SPRT
    matches: int = 0

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
    SPRT(spec.h0, spec.h1, spec.alpha, spec.beta)  # the test's own checks, before anything is stored
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


async def play_comparison(
    store: Store,
    tournament_id: int,
    spec: CompareSpec,
    *,
    concurrency: int = 4,
    on_deal: Callable[[SPRT], None] | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    log_dir: Path | str | None = None,
    workers: int | None = None,
    venue: Venue | None = None,
) -> CompareResult:
    """Play the comparison's deals until the test decides or they run out. ``on_deal`` sees the test
    after each deal completes (for live progress); ``workers`` and ``venue`` as for ``play_tournament``."""
    test = SPRT(spec.h0, spec.h1, spec.alpha, spec.beta)
    result = CompareResult(tournament_id, test)
    players = Rules.parse(get_tournament(store, tournament_id).rules).players
    per_deal: dict[int, dict[str, list[float]]] = {}
    deal_of = {m.seed: m.deal for m in store.tournaments.pending(tournament_id)}

    def on_record(record: MatchRecord) -> None:
        result.matches += 1
        deal = deal_of.get(record.seed)
        if deal is None:
            return
        seats = {s.bot: s for s in record.seats}
        for bot in (spec.a, spec.b):
            if bot in seats:
                points = seats[bot].final_score / max(1, len(record.hands))
                per_deal.setdefault(deal, {spec.a: [], spec.b: []})[bot].append(points)
        cell = per_deal.get(deal)
        if cell is not None and all(len(v) == players for v in cell.values()):
            test.add(sum(cell[spec.a]) / players - sum(cell[spec.b]) / players)
            del per_deal[deal]
            if on_deal is not None:
                on_deal(test)

    await play_tournament(
        store,
        tournament_id,
        concurrency=concurrency,
        on_record=on_record,
        stop=lambda: test.verdict != "continue",
        startup_timeout=startup_timeout,
        log_dir=log_dir,
        workers=workers,
        venue=venue,
    )
    if test.verdict != "continue":
        with store.db.atomic():  # decided: the deals not played are not owed
            store.tournaments.drop_pending(tournament_id)
            store.tournaments.set_status(tournament_id, "finished")
    return result
