"""The leaderboard: ratings from ``ladder.ratings.fit.fit`` plus per-bot figures from the records.

Elo, its ±95% interval, the provisional mark and the likelihood of superiority over the next bot
all come from the batch Plackett–Luce fit over every recorded match (a forfeiter places last).
The other columns are plain counts over the same matches:

- score %: opponents out-placed, a tie counting half (the four-player analogue of a chess score);
- win %: matches finished in first place (a shared first counts as a win);
- avg place; points per hand: final score / hands played, what the bot's total grew by per hand;
  moons: hands in which it shot the moon or the sun (the engine records a sun as sun, not moon); faults;
- dup Δ: points per match against the field on the same deal and seat. Duplicate schedules play
  every seed from every seat, so ``score − mean(others' scores on that seed and seat)`` removes
  the luck of the cards; negative is better (points are bad in Hearts). Blank without duplicates.

A match in which one bot filled more than one seat (self-play, e.g. ``hearts match`` with one
name in every seat) says nothing about one bot against another, and its per-bot counts would
count one bot several times: it is left out of every figure, and ``Leaderboard.self_play``
counts the matches left out (a note under the table, ``self_play`` in the JSON).

A match with a person at the table (``hearts play``) is left out too, and counted in
``Leaderboard.with_people``: people are not rated with the bots. A person's play is neither
stationary nor independent of the bots' (one learns the bots as one plays them, one leaves and a
substitute finishes the hand), so their results would move the bots' ratings by what the person
did that day; and a ladder of bots is what a contest ranks.

A ladder is per ruleset: points per hand, dup Δ and placings mean different things under other
point schemes and player counts, so ``load_leaderboard`` rates one ruleset (``rules``; by default
the ruleset of the latest tournament) and lists the others with their match counts
(``Leaderboard.other_rulesets``). Rulesets are compared in the store's form, the compact sorted
JSON of ``Rules.to_dict()`` (``ruleset_key``): ``spot`` and ``spot,target=500`` are one ruleset.

Everything here is computed from ``RatedMatch`` values, so it is testable on hand-made records;
``load_summaries`` reads them from the store.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.table import Table

from ladder.ratings.fit import (
    DEFAULT_PRIOR,
    DEFAULT_PROVISIONAL_GAMES,
    ELO_BASE,
    MatchResult,
    Ratings,
    fit,
)
from ladder.store import Store, canonical_rules, rules_text
from referee.record import MatchRecord, MatchStatus
from referee.rules import Rules

__all__ = [
    "Leaderboard",
    "LeaderboardRow",
    "RatedMatch",
    "RulesetCount",
    "SeatResult",
    "compute_leaderboard",
    "live_elo",
    "load_leaderboard",
    "load_summaries",
    "rated_match",
    "render_table",
    "ruleset_key",
    "ruleset_text",
    "rulesets",
    "to_csv",
    "to_html",
    "to_json",
]


@dataclass(frozen=True)
class SeatResult:
    """One bot's part in one match."""

    bot: str
    seat: int
    score: int
    place: int
    forfeit: bool = False
    faults: int = 0
    moons: int = 0
    kind: str = "bot"  # who sat there: a bot, or a person ("human"), never rated


@dataclass(frozen=True)
class RatedMatch:
    """What the leaderboard needs of one match. ``deal_key`` groups matches dealt alike (rules + seed)."""

    match_id: str
    seed: int
    hands: int
    seats: tuple[SeatResult, ...]
    deal_key: str = ""

    def result(self) -> MatchResult:
        # Ranked by the places the referee recorded, not recomputed from totals: they already put a
        # forfeiter last and a shot that won the match (moon=wins-match) first, whatever its total.
        return MatchResult(players=tuple(s.bot for s in self.seats), places=tuple(s.place for s in self.seats))


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    bot: str
    elo: float
    ci95: float
    provisional: bool
    los_next: float | None  # P(stronger than the bot ranked next)
    games: int
    score_pct: float
    win_pct: float
    avg_place: float
    points_per_hand: float
    moons: int
    faults: int
    forfeits: int
    dup_delta: float | None  # points per match vs the field on the same deal and seat


@dataclass(frozen=True)
class RulesetCount:
    """One ruleset of the store's finished matches: its ``--rules`` text (None when this version
    cannot read the stored rules back), its key (``ruleset_key``) and how many matches it has."""

    rules: str | None
    key: str
    matches: int


@dataclass
class Leaderboard:
    rows: list[LeaderboardRow]
    warnings: list[str] = field(default_factory=list)
    matches: int = 0
    ratings: Ratings | None = field(default=None, repr=False)
    # Live pairwise Elo by bot (an in-play indicator, not the ranking); empty when not loaded.
    live_elo: dict[str, float] = field(default_factory=dict)
    # Matches left out because one bot filled more than one seat (see the module's docstring).
    self_play: int = 0
    # Matches left out because a person sat at the table (people are not rated with the bots).
    with_people: int = 0
    # The ruleset rated (its --rules text; None: not loaded from a store, or nothing to rate), and
    # the other rulesets of the same selection, most matches first.
    rules: str | None = None
    other_rulesets: list[RulesetCount] = field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        """Plain remarks on what was rated (printed under the table, listed in the JSON)."""
        notes = []
        if self.self_play:
            n = self.self_play
            matches, verb = ("match", "is") if n == 1 else ("matches", "are")
            notes.append(
                f"{n} {matches} in which one bot filled several seats {verb} left out: "
                "self-play rates no bot against another"
            )
        if self.with_people:
            n = self.with_people
            matches, verb = ("match", "is") if n == 1 else ("matches", "are")
            notes.append(
                f"{n} {matches} with a person at the table {verb} left out: people are not rated with the bots"
            )
        return notes

    def __getitem__(self, bot: str) -> LeaderboardRow:
        for r in self.rows:
            if r.bot == bot:
                return r
        raise KeyError(bot)

    def _repr_html_(self) -> str:
        """The ladder as an HTML table, for a notebook (``to_html``)."""
        return to_html(self)


def compute_leaderboard(
    matches: Iterable[RatedMatch],
    *,
    prior: float = DEFAULT_PRIOR,
    anchor: str | None = None,
    provisional_games: int = DEFAULT_PROVISIONAL_GAMES,
    start: Mapping[str, float] | None = None,
) -> Leaderboard:
    """The leaderboard of ``matches``, best first (by the fitted Elo; ``start``: an earlier board's
    Elo by bot, where the fit's search begins).

    Matches in which one bot filled more than one seat are left out (counted in ``self_play``), and
    matches with a person at the table (counted in ``with_people``).
    """
    ms: list[RatedMatch] = []
    self_play = with_people = 0
    for m in matches:
        if any(s.kind != "bot" for s in m.seats):
            with_people += 1
        elif len({s.bot for s in m.seats}) < len(m.seats):
            self_play += 1
        else:
            ms.append(m)
    ratings = fit(
        (m.result() for m in ms), prior=prior, anchor=anchor, provisional_games=provisional_games, start=start
    )
    games: defaultdict[str, int] = defaultdict(int)
    outplaced: defaultdict[str, float] = defaultdict(float)
    wins: defaultdict[str, int] = defaultdict(int)
    place_sum: defaultdict[str, int] = defaultdict(int)
    points: defaultdict[str, int] = defaultdict(int)
    hands: defaultdict[str, int] = defaultdict(int)
    moons: defaultdict[str, int] = defaultdict(int)
    faults: defaultdict[str, int] = defaultdict(int)
    forfeits: defaultdict[str, int] = defaultdict(int)
    for m in ms:
        n = len(m.seats)
        for s in m.seats:
            games[s.bot] += 1
            # Opponents out-placed, ties half, as a share of the opponents (so 3- and 5-player
            # tables weigh the same as 4-player ones).
            beaten = sum(
                1.0 if s.place < o.place else 0.5 if s.place == o.place else 0.0 for o in m.seats if o is not s
            )
            outplaced[s.bot] += beaten / (n - 1) if n > 1 else 0.0
            wins[s.bot] += s.place == 1
            place_sum[s.bot] += s.place
            points[s.bot] += s.score
            hands[s.bot] += m.hands
            moons[s.bot] += s.moons
            faults[s.bot] += s.faults
            forfeits[s.bot] += s.forfeit
    dup = _duplicate_deltas(ms)
    rows = []
    for rank, r in enumerate(ratings.bots, start=1):
        g = games[r.name]
        rows.append(
            LeaderboardRow(
                rank=rank,
                bot=r.name,
                elo=r.elo,
                ci95=r.ci95,
                provisional=r.provisional,
                los_next=r.los_next,
                games=g,
                score_pct=100.0 * outplaced[r.name] / g if g else math.nan,
                win_pct=100.0 * wins[r.name] / g if g else math.nan,
                avg_place=place_sum[r.name] / g if g else math.nan,
                points_per_hand=points[r.name] / hands[r.name] if hands[r.name] else math.nan,
                moons=moons[r.name],
                faults=faults[r.name],
                forfeits=forfeits[r.name],
                dup_delta=dup.get(r.name),
            )
        )
    return Leaderboard(
        rows=rows,
        warnings=list(ratings.warnings),
        matches=len(ms),
        ratings=ratings,
        self_play=self_play,
        with_people=with_people,
    )


def _duplicate_deltas(ms: Sequence[RatedMatch]) -> dict[str, float]:
    """Mean over a bot's matches of score − mean(others' scores on the same deal and seat).

    Only (deal, seat) cells that more than one bot played count; a bot with none gets no value.
    """
    cells: defaultdict[tuple[str, int, int, int], list[tuple[str, int]]] = defaultdict(list)
    for m in ms:
        for s in m.seats:
            cells[(m.deal_key, m.seed, len(m.seats), s.seat)].append((s.bot, s.score))
    total: defaultdict[str, float] = defaultdict(float)
    count: defaultdict[str, int] = defaultdict(int)
    for results in cells.values():
        if len(results) < 2:
            continue
        cell_sum = sum(score for _bot, score in results)
        k = len(results)
        for bot, score in results:
            total[bot] += score - (cell_sum - score) / (k - 1)
            count[bot] += 1
    return {b: total[b] / count[b] for b in count}


def rated_match(record: MatchRecord) -> RatedMatch:
    """What the leaderboard needs of one finished match's record, as ``load_summaries`` reads it from
    the store: a ladder of records never saved (``compute_leaderboard(map(rated_match, records))``).
    ``ValueError`` for a match that did not finish (the store rates finished matches only)."""
    if MatchStatus(record.status) is not MatchStatus.FINISHED:
        raise ValueError(f"match {record.match_id} is {MatchStatus(record.status).value}: only finished ones are rated")
    return RatedMatch(
        match_id=record.match_id,
        seed=record.seed,
        hands=len(record.hands),
        deal_key=canonical_rules(record.rules),
        seats=tuple(
            SeatResult(
                bot=s.bot,
                seat=s.seat,
                score=s.final_score,
                place=s.place,
                forfeit=s.forfeit,
                faults=s.faults,
                # A sun takes every penalty card too; the engine records it as sun with moon None.
                moons=sum(1 for h in record.hands if s.seat in (h.moon, h.sun)),
                kind=s.kind,
            )
            for s in record.seats
        ),
    )


# -- reading the store ---------------------------------------------------------------------------


def ruleset_key(rules: str | Rules | Mapping[str, Any]) -> str:
    """A ruleset as the store keeps it in ``matches.rules``: its canonical text, ``str(Rules)``.
    ``rules`` is a --rules text (``ValueError`` if it does not parse), a ``Rules`` or its dict."""
    if isinstance(rules, str):
        rules = Rules.parse(rules)
    elif not isinstance(rules, Rules):
        return canonical_rules(dict(rules))  # cached: every match saved asks it of its record
    return str(rules)


def ruleset_text(rules: str | Mapping[str, Any]) -> str | None:
    """The ``--rules`` text that selects this ruleset (a stored text or a ``Rules.to_dict()``): its
    canonical text, the shortest of a preset and the options that differ, e.g. ``standard,target=20``.
    None if it is not a ruleset this version can read (it was stored by another version)."""
    if isinstance(rules, str):
        return rules_text(rules)
    try:
        return str(Rules.from_dict(rules))
    except (TypeError, ValueError, KeyError):
        return None


def _key(rules: str | Rules | Mapping[str, Any] | None) -> str | None:
    return None if rules is None else ruleset_key(rules)


def rulesets(store: Store, *, tournament_id: int | None = None) -> list[RulesetCount]:
    """The rulesets of the store's finished matches (or one tournament's), most matches first."""
    return [
        RulesetCount(rules=ruleset_text(key), key=key, matches=n)
        for key, n in store.ladder.ruleset_counts(tournament_id)
    ]


def _default_ruleset(store: Store, tournament_id: int | None) -> str | None:
    """The key of the ruleset a ladder shows by default: the latest tournament's (of those with a
    finished match), else that of the latest finished single match; None if there is no match."""
    return store.ladder.latest_ruleset(tournament_id)


def load_summaries(
    store: Store, *, tournament_id: int | None = None, rules: str | Rules | None = None
) -> list[RatedMatch]:
    """Every finished match in the store (or one tournament's, or one ruleset's: a --rules text or
    a ``Rules``), as summaries. Without ``rules`` it mixes rulesets: ``load_leaderboard`` never does."""
    return _load_summaries(store, tournament_id, _key(rules))


def _load_summaries(store: Store, tournament_id: int | None, rules_key: str | None) -> list[RatedMatch]:
    out: list[RatedMatch] = []
    for _mid, group in itertools.groupby(store.ladder.seat_results(tournament_id, rules_key), key=lambda r: r[0]):
        rows = list(group)
        r0 = rows[0]
        out.append(
            RatedMatch(
                match_id=r0[0],
                seed=r0[1],
                hands=r0[3],
                deal_key=r0[2],
                seats=tuple(
                    SeatResult(
                        bot=r[5],
                        seat=r[4],
                        score=r[6],
                        place=r[7],
                        forfeit=bool(r[8]),
                        faults=r[9],
                        moons=r[10],
                        kind=r[11],
                    )
                    for r in rows
                ),
            )
        )
    return out


def live_elo(
    store: Store,
    *,
    tournament_id: int | None = None,
    rules: str | Rules | Mapping[str, Any] | None = None,
    bots: Iterable[str] | None = None,
) -> dict[str, float]:
    """Live pairwise Elo by bot: 1500 plus the sum of its changes over the matches that pass the
    leaderboard's filters (``load_summaries``); ``bots`` keeps only those names (one query for a
    whole table). Bots without a change are left out."""
    return _live_elo(store, tournament_id, _key(rules), bots)


def _live_elo(
    store: Store, tournament_id: int | None, rules_key: str | None, bots: Iterable[str] | None = None
) -> dict[str, float]:
    return {
        name: ELO_BASE + change
        for name, change in store.ladder.live_elo_changes(tournament_id, rules_key, bots).items()
    }


def load_leaderboard(
    store: Store,
    *,
    tournament_id: int | None = None,
    rules: str | Rules | None = None,
    anchor: str | None = None,
    provisional_games: int = DEFAULT_PROVISIONAL_GAMES,
    leave_out_seeds: Collection[int] = (),
    start: Mapping[str, float] | None = None,
) -> Leaderboard:
    """The leaderboard of one ruleset of the store's matches (or of one tournament's): ``rules``,
    by default the ruleset of the latest tournament (``_default_ruleset``). Its live Elo counts the
    same matches; ``other_rulesets`` lists the rest of the selection. ``leave_out_seeds``: matches
    dealt from these seeds are not counted (a tournament's deals still played in other seatings).
    ``start``: an earlier board's Elo by bot, where the fit begins its search (the same board, sooner)."""
    key = _key(rules) if rules is not None else _default_ruleset(store, tournament_id)
    summaries = _load_summaries(store, tournament_id, key) if key is not None else []
    if leave_out_seeds:
        summaries = [m for m in summaries if m.seed not in leave_out_seeds]
    lb = compute_leaderboard(summaries, anchor=anchor, provisional_games=provisional_games, start=start)
    if key is not None:
        lb.live_elo = _live_elo(store, tournament_id, key)
        lb.rules = ruleset_text(key)
    lb.other_rulesets = [r for r in rulesets(store, tournament_id=tournament_id) if r.key != key]
    return lb


def load_stored_leaderboard(
    path: str,
    *,
    tournament_id: int | None = None,
    rules: str | None = None,
    leave_out_seeds: Collection[int] = (),
    start: Mapping[str, float] | None = None,
) -> Leaderboard:
    """``load_leaderboard`` of the database at ``path``, read through a connection of its own (for a
    process apart: a pool's worker fits a big board there)."""
    store = Store(path, readonly=True)
    try:
        return load_leaderboard(
            store, tournament_id=tournament_id, rules=rules, leave_out_seeds=leave_out_seeds, start=start
        )
    finally:
        store.close()


# -- output --------------------------------------------------------------------------------------


def _f(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}f}"


def render_table(lb: Leaderboard, title: str = "Ladder") -> Table:
    """A rich table of the leaderboard (provisional ratings marked with '?')."""
    rules = f", rules {lb.rules}" if lb.rules is not None else ""
    t = Table(title=f"{title}: {lb.matches} matches{rules}", title_justify="left")
    live = bool(lb.live_elo)
    for name in (
        "rank",
        "bot",
        "Elo",
        "±95%",
        "LOS↓",
        "games",
        "score %",
        "win %",
        "avg place",
        "pts/hand",
        "dup Δ",
        "moons",
        "faults",
    ) + (("live Elo*",) if live else ()):
        t.add_column(name, justify="left" if name == "bot" else "right")
    for r in lb.rows:
        t.add_row(*_cells(lb, r, live))
    caption = [_LEGEND] + ([_LIVE_LEGEND] if live else [])
    caption += [f"[yellow]warning: {w}[/]" for w in lb.warnings]
    caption += [f"note: {n}" for n in lb.notes]
    t.caption = "\n".join(caption)
    t.caption_justify = "left"
    return t


# What the table's columns mean, under the terminal's table and the notebook's alike.
_LEGEND = (
    "Elo: batch Plackett–Luce fit over all matches, ± its 95% interval; ? provisional; "
    "LOS↓: likelihood of superiority over the next bot; dup Δ: points/match vs the field "
    "on the same deal and seat (negative is better)"
)
_LIVE_LEGEND = (
    "live Elo*: pairwise Elo updated after each match (K/(N−1) per pair), an in-play "
    "indicator that depends on match order; the ranking is the fitted Elo"
)


def _cells(lb: Leaderboard, r: LeaderboardRow, live: bool) -> list[str]:
    """One row as the table and the HTML show it."""
    return [
        str(r.rank),
        r.bot,
        f"{r.elo:.0f}" + ("?" if r.provisional else ""),
        _f(r.ci95, 0),
        "" if r.los_next is None else f"{100 * r.los_next:.0f}%",
        str(r.games),
        _f(r.score_pct),
        _f(r.win_pct),
        _f(r.avg_place, 2),
        _f(r.points_per_hand, 2),
        "" if r.dup_delta is None else f"{r.dup_delta:+.1f}",
        str(r.moons),
        str(r.faults) + (f" ({r.forfeits} forfeit)" if r.forfeits else ""),
    ] + ([_f(lb.live_elo.get(r.bot), 0)] if live else [])


_HTML_STYLE = (
    "<style>.hearts-ladder td,.hearts-ladder th{text-align:right}"
    ".hearts-ladder td.bot,.hearts-ladder th.bot{text-align:left}"
    ".hearts-ladder caption{caption-side:top;text-align:left;font-weight:bold}"
    ".hearts-ladder-notes{font-size:90%;color:#555}</style>"
)


def to_html(lb: Leaderboard, title: str = "Ladder") -> str:
    """The leaderboard as one HTML table, the columns of ``render_table`` (a notebook shows it:
    ``Leaderboard._repr_html_``), its remarks under it. Every name is escaped: a bot's name is its own."""
    e = html.escape
    rules = f", rules {lb.rules}" if lb.rules is not None else ""
    live = bool(lb.live_elo)
    heads = ["rank", "bot", "Elo", "±95%", "LOS↓", "games", "score %", "win %", "avg place", "pts/hand", "dup Δ",
             "moons", "faults"] + (["live Elo*"] if live else [])  # fmt: skip
    out = [
        _HTML_STYLE,
        '<table class="hearts-ladder">',
        f"<caption>{e(title)}: {lb.matches} matches{e(rules)}</caption>",
        "<thead><tr>" + "".join(f'<th class="{"bot" if h == "bot" else "num"}">{e(h)}</th>' for h in heads),
        "</tr></thead><tbody>",
    ]
    for r in lb.rows:
        cells = _cells(lb, r, live)
        out.append(
            f'<tr data-bot="{e(r.bot)}">'
            + "".join(f'<td class="{"bot" if i == 1 else "num"}">{e(c)}</td>' for i, c in enumerate(cells))
            + "</tr>"
        )
    if not lb.rows:
        out.append(f'<tr><td colspan="{len(heads)}" class="bot">No rated matches.</td></tr>')
    out.append("</tbody></table>")
    remarks = [_LEGEND] + ([_LIVE_LEGEND] if live else [])
    remarks += [f"warning: {w}" for w in lb.warnings] + [f"note: {n}" for n in lb.notes]
    out.append('<p class="hearts-ladder-notes">' + "<br>".join(e(r) for r in remarks) + "</p>")
    return "".join(out)


def _row_dict(lb: Leaderboard, r: LeaderboardRow) -> dict[str, object]:
    d = asdict(r)
    d["live_elo"] = lb.live_elo.get(r.bot)
    for k, v in d.items():
        if isinstance(v, float) and not math.isfinite(v):
            d[k] = None  # JSON has no NaN or Infinity
    return d


LADDER_SCHEMA = "hearts-arena/ladder"
LADDER_VERSION = 1  # bump on any change a reader of the last version would misread; adding a field is one too

# What a spreadsheet is given: each figure to the digits the table shows, one more where it helps.
_CSV_DIGITS = {
    "elo": 1,
    "ci95": 1,
    "los_next": 3,
    "score_pct": 1,
    "win_pct": 1,
    "avg_place": 2,
    "points_per_hand": 2,
    "dup_delta": 2,
    "live_elo": 1,
}


def to_json(lb: Leaderboard) -> str:
    """The leaderboard as JSON (``schema`` and ``version`` first): the ruleset rated, matches, warnings,
    notes, self_play and with_people (matches left out), one object per row (null for no value, figures
    unrounded) and the other rulesets with their match counts."""
    return json.dumps(
        {
            "schema": LADDER_SCHEMA,
            "version": LADDER_VERSION,
            "rules": lb.rules,
            "matches": lb.matches,
            "warnings": lb.warnings,
            "notes": lb.notes,
            "self_play": lb.self_play,
            "with_people": lb.with_people,
            "rows": [_row_dict(lb, r) for r in lb.rows],
            "other_rulesets": [{"rules": r.rules, "matches": r.matches} for r in lb.other_rulesets],
        },
        indent=2,
    )


def to_csv(lb: Leaderboard) -> str:
    """The leaderboard as CSV with a header row: figures rounded as the table shows them, ``true`` and
    ``false``, empty cells for no value."""
    out = io.StringIO()
    names = [*LeaderboardRow.__dataclass_fields__, "live_elo"]
    w = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    w.writeheader()
    for r in lb.rows:
        w.writerow({k: _csv_cell(k, v) for k, v in _row_dict(lb, r).items()})
    return out.getvalue()


def _csv_cell(name: str, value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and name in _CSV_DIGITS:
        return f"{value:.{_CSV_DIGITS[name]}f}"
    return value
