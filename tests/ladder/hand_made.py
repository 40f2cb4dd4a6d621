"""Hand-made match records saved straight into a real store, for tests where the referee's play is
not the point."""

from __future__ import annotations

from ladder.store import Store
from ladder.store.save import save_scheduled
from ladder.tournament.run import pending_matches
from ladder.tournament.schedule import match_id
from referee.record import HandRecord, MatchRecord, SeatRecord
from referee.rules import Rules


def record(
    mid: str,
    tid: int | None,
    rules: str,
    places: dict[str, int],
    *,
    hands: list[HandRecord] | None = None,
    scores: dict[str, int] | None = None,
) -> MatchRecord:
    """A finished match of the bots in ``places`` (seat order as given)."""
    seats = [
        SeatRecord(seat=i, bot=b, place=p, final_score=(scores or {}).get(b, 10 * p))
        for i, (b, p) in enumerate(places.items())
    ]
    return MatchRecord(
        match_id=mid,
        seed=1,
        rules=Rules.parse(rules).to_dict(),
        seats=seats,
        started_at="2024-01-01T00:00:00.000+00:00",
        tournament_id=tid,
        hands=hands or [],
    )


def play_by_hand(store: Store, tid: int, places: dict[str, int]) -> None:
    """Save every pending match of ``tid`` as if played, with the given places."""
    rules = store.db.execute("SELECT rules FROM tournaments WHERE id = ?", [tid]).fetchone()[0]
    for m in pending_matches(store, tid):
        save_scheduled(store, tid, m.index, record(match_id(tid, m.index), tid, rules, {b: places[b] for b in m.seats}))
