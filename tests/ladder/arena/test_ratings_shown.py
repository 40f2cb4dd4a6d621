"""Every rating the arena shows is the ladder's, at any number of seats the engine plays (3 to 10): the
leaderboard (the API's JSON and the site's page) is ladder.ratings' fit of the arena's matches, and a
bot page's running Elo is the live Elo the ladder keeps as it saves (``live_elo_update``, K/(N−1) a
pair), not a rule of the site's own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from clients.bots import make_bot
from ladder.arena import views
from ladder.arena.accounts import add_user
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.store import ArenaStore
from ladder.arena.worker import ladder_tournament, sync_house
from ladder.ratings.fit import live_elo_update
from ladder.ratings.leaderboard import load_leaderboard
from ladder.site.render import rating_svg
from ladder.store.save import LIVE_ELO_K, save_scheduled
from ladder.tournament.schedule import build_schedule, match_id
from referee.match import play_match
from referee.record import MatchRecord
from referee.rules import Rules
from referee.seats import InProcessSeat

pytestmark = pytest.mark.slow  # whole processes and servers

MATCHES = 6


def _fold(records: list[MatchRecord], bot: str, k: float) -> list[tuple[int, float]]:
    """``bot``'s Elo after each of its matches, ``live_elo_update`` applied match by match in the order played."""
    ratings: dict[str, float] = {}
    out: list[tuple[int, float]] = []
    for r in records:
        players = [s.bot for s in r.seats]
        ratings = live_elo_update(ratings, players, [float(s.place) for s in r.seats], k=k)
        if bot in players:
            out.append((len(out) + 1, ratings[bot]))
    return out


@pytest.mark.parametrize(
    "rules", ["standard,players=3,target=20", "standard,players=5,target=20", "cancellation,players=10,target=20"]
)
def test_the_ratings_shown_are_the_ladders(tmp_path: Path, rules: str) -> None:
    n = Rules.parse(rules).players
    house = tuple(HouseBot(f"b{i}", command="python -m clients.bots.random --port {port}") for i in range(n + 1))
    cfg = ArenaConfig(rules=rules, house=house)
    store = ArenaStore(tmp_path / "arena.db")
    try:
        _o, organiser = add_user(store, "organiser", organiser=True)
        sync_house(store, cfg)
        tid = ladder_tournament(store, cfg)
        names = sorted(v.ladder_name for v in store.newest_valid())
        store.ladder.tournaments.insert_schedule(tid, build_schedule(names, rules=rules, players=n, seed=3))
        records = []
        for m in store.ladder.tournaments.pending(tid)[:MATCHES]:
            seats = [InProcessSeat(make_bot("random", seed=m.index * n + i), b) for i, b in enumerate(m.seats)]
            record = asyncio.run(
                play_match(
                    seats,
                    Rules.parse(m.rules),
                    m.seed,
                    match_id=match_id(tid, m.index),
                    names=list(m.seats),
                    tournament_id=tid,
                )
            )
            save_scheduled(store.ladder, tid, m.index, record)  # as the arena saves: its live Elo kept
            records.append(record)
        store.ladder.tournaments.drop_pending(tid)  # every deal played: no record is withheld
        store.db.conn.commit()
        fitted = load_leaderboard(store.ladder, tournament_id=tid, rules=rules)
        played = {s.bot for r in records for s in r.seats}
        bot = max(sorted(played), key=lambda b: sum(b in {s.bot for s in r.seats} for r in records))
        expected = _fold(records, bot, LIVE_ELO_K)
        assert len(expected) >= 2
        if n != 4:  # the rule of K/3 a pair, right for four seats only, would draw another line
            assert expected != _fold(records, bot, LIVE_ELO_K * (n - 1) / 3)
        with TestClient(build_app(tmp_path, cfg, background=False)) as client:
            board = client.get("/api/leaderboard?versions=all", headers={"Authorization": f"Bearer {organiser}"})
            shown = {r["ladder_name"]: (r["elo"], r["games"]) for r in board.json()["rows"]}
            assert shown == {r.bot: (r.elo, r.games) for r in fitted.rows} and len(shown) == len(played)
            page = client.get("/").text
            assert all(f"{r.elo:.0f}" in page for r in fitted.rows)
            name = bot.rsplit(".v", 1)[0]
            html = client.get(f"/bots/{name}").text
            assert html.count(rating_svg(expected)) == 1
            state = client.app.state.arena  # type: ignore[attr-defined]
            page_data = asyncio.run(views.bot_page(state, views.VISITOR, name))
            assert [(i, round(e, 6)) for i, e in page_data.history] == [(i, round(e, 6)) for i, e in expected]
            # Over its whole history, as the page says.
            assert page_data.history_matches == len(expected)
            assert f"after each of its {len(expected)} matches" in html and "over all its matches" in html
    finally:
        store.close()
