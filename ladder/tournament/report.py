"""The lines that tell a Swiss's standings and a knockout's bracket as they stand: what ``hearts
tournament run`` prints after each round and at the end. Plain text; the bots' names are theirs
(print them as data, never markup)."""

from __future__ import annotations

from collections.abc import Sequence

from ladder.store import Store
from ladder.tournament.schedule import ScheduledMatch
from ladder.tournament.stages import Bracket, BracketRound, SwissState, bracket, swiss_state

__all__ = ["bracket_lines", "final_lines", "round_lines", "standings_lines"]


def _score(x: float) -> str:
    return f"{x:g}"


def standings_lines(state: SwissState, top: int | None = None) -> list[str]:
    """The standings, one line a bot: place, name, match points, margin a hand, tables and byes."""
    rows = state.standings if top is None else state.standings[:top]
    width = max((len(s.bot) for s in rows), default=0)
    out = []
    for i, s in enumerate(rows, 1):
        bye = f", {s.byes} bye" + ("s" if s.byes != 1 else "") if s.byes else ""
        figures = f"{_score(s.score):>4} pts  {s.margin:+.2f}/hand ({s.tables} tables{bye})"
        out.append(f"  {i:>2}. {s.bot:<{width}}  {figures}")
    if top is not None and len(state.standings) > top:
        out.append(f"  ... {len(state.standings) - top} more")
    return out


def _table_line(br: BracketRound, t: int, seats: Sequence[str]) -> str:
    order = br.orders.get(t)
    if order is None:
        deal = br.sudden_deaths.get(t, 0) + 1
        return f"  table {t + 1}: {', '.join(seats)}: tied at the cut, sudden-death deal {deal}"
    if br.final:
        return f"  final: {', '.join(f'{i}. {b}' for i, b in enumerate(order, 1))}"
    on = [b for b in order if b in br.going_on]
    out = [b for b in order if b not in br.going_on]
    return f"  table {t + 1}: {', '.join(on)} go on; {', '.join(out)} out"


def bracket_lines(b: Bracket) -> list[str]:
    """Each round of the bracket: its byes, and each decided table's order."""
    out = []
    for br in b.rounds:
        name = "final" if br.final else f"round {br.round + 1}"
        out.append(f"{name}: {len(br.field)} bots" + (f"; byes: {', '.join(br.byes)}" if br.byes else ""))
        out += [_table_line(br, t, seats) for t, seats in enumerate(br.tables)]
    return out


def round_lines(store: Store, tid: int, matches: Sequence[ScheduledMatch]) -> list[str]:
    """What a new round (``matches``, just drawn) says: the standings or bracket it was drawn from."""
    row = store.tournaments.get(tid)
    if row is None or not matches:
        return []
    r = matches[0].round
    if row.format == "swiss":
        state = swiss_state(store, tid)
        head = f"tournament {tid}: round {state.rounds_done} of {state.rounds} played; standings:"
        byes = state.byes[r] if r < len(state.byes) else []
        tail = f"round {r + 1}: {len(matches)} matches" + (f"; byes: {', '.join(byes)}" if byes else "")
        return [head, *standings_lines(state, top=8), tail]
    b = bracket(store, tid)
    latest = b.rounds[-1]
    if latest.round == r and not latest.decided and any(m.deal >= row.deals for m in matches):
        return [f"tournament {tid}:", *bracket_lines(Bracket([latest], b.players))]
    done = [br for br in b.rounds if br.round == r - 1]
    return [f"tournament {tid}:", *bracket_lines(Bracket(done, b.players))]


def final_lines(store: Store, tid: int) -> list[str]:
    """The whole standings of a Swiss, or the whole bracket and the placings of a knockout."""
    row = store.tournaments.get(tid)
    if row is None:
        return []
    if row.format == "swiss":
        state = swiss_state(store, tid)
        return [f"Swiss standings after {state.rounds_done} of {state.rounds} rounds:", *standings_lines(state)]
    b = bracket(store, tid)
    lines = [f"Knockout bracket of tournament {tid}:", *bracket_lines(b)]
    if b.winner is not None:
        lines.append(f"winner: {b.winner}; placings: {', '.join(b.placings())}")
    return lines
