"""What a participant sees of a match, through the API and the site (the ASGI app, a real SQLite file,
a match played over gRPC against real bot servers on loopback): no bot's address but their own's
(the house bots' addresses are where the organiser's bots listen), and no score or place of a match
whose deal other seatings still play, anywhere: the match list, the leaderboard, a bot's page, the
live page. The organiser sees all of it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread
from ladder.arena import views
from ladder.arena.accounts import Account, add_user, new_alias
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import ladder_tournament, sync_house
from ladder.bots.launcher import free_port
from ladder.tournament.schedule import build_schedule, match_id
from referee.match import MatchSettings, play_match
from referee.rules import Rules
from referee.seats import GrpcSeat, Seat

pytestmark = pytest.mark.slow  # whole processes and servers

RULES = "standard,target=20"
HOUSE = (
    HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),
    HouseBot("random", command="python -m clients.bots.random --port {port}"),
    HouseBot("gone", command="python -m clients.bots.lowest --port {port}"),
)


@dataclass
class Played:
    client: TestClient
    store: ArenaStore
    tokens: dict[str, str]  # organiser, alice (whose hosted bot played), bob (no bot of his)
    match_id: str
    addresses: dict[str, str]  # ladder name -> where it was reached
    tournament: int


@pytest.fixture()
def played(tmp_path: Path) -> Iterator[Played]:
    """One match of a duplicate deal, recorded, its three other seatings still to play: alice's hosted
    bot and two house bots served on loopback, a third house bot gone (its seat faults, unreachable)."""
    cfg = ArenaConfig(rules=RULES, house=HOUSE)
    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    a, alice = add_user(store, "alice")
    _b, bob = add_user(store, "bob")
    sync_house(store, cfg)
    servers: list[ThreadedBotServer] = [start_in_thread(make_bot("lowest")) for _ in range(3)]
    try:
        bot_id = store.add_bot("alice-bot", a.id, new_alias(store, "alice-bot"))
        store.add_version(bot_id, a.id, status=VersionStatus.VALID, kind="address", address=servers[0].address)
        addresses = {
            "alice-bot.v1": servers[0].address,
            "lowest.v1": servers[1].address,
            "random.v1": servers[2].address,
            "gone.v1": f"127.0.0.1:{free_port()}",  # nothing listens there
        }
        tid = ladder_tournament(store, cfg)
        store.ladder.tournaments.insert_schedule(tid, build_schedule(sorted(addresses), rules=RULES, seed=5))
        first = store.ladder.tournaments.pending(tid)[0]
        seats: list[Seat] = [GrpcSeat(addresses[n], n) for n in first.seats]
        record = asyncio.run(
            play_match(
                seats,
                Rules.parse(first.rules),
                first.seed,
                settings=MatchSettings(budget_ms=500, bank_ms=2000, handshake_ms=1000),
                match_id=match_id(tid, first.index),
                names=list(first.seats),
                tournament_id=tid,
            )
        )
        mid = store.ladder.save_match(record)
        store.ladder.tournaments.mark_recorded(tid, first.index, mid)
        store.db.conn.commit()
        client = TestClient(build_app(tmp_path, cfg, background=False))
        with client:
            yield Played(client, store, {"organiser": org, "alice": alice, "bob": bob}, mid, addresses, tid)
    finally:
        for s in servers:
            s.stop()
        store.close()


def _get(p: Played, who: str, path: str) -> object:
    r = p.client.get(path, headers={"Authorization": f"Bearer {p.tokens[who]}"})
    assert r.status_code == 200, (path, r.text)
    return r.json()


def _site(p: Played, who: str | None, path: str) -> str:
    """A page of the site, as a visitor or signed in (the sign-in form, as a browser sends it)."""
    p.client.cookies.clear()
    if who is not None:
        page = p.client.get("/signin")
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        r = p.client.post("/signin", data={"token": p.tokens[who], "csrf": csrf}, follow_redirects=False)
        assert r.status_code == 303, r.text
    r = p.client.get(path)
    assert r.status_code == 200, (path, r.text)
    return r.text


def test_a_withheld_match_shows_participants_no_score_or_place_anywhere(played: Played) -> None:
    p = played
    assert p.store.ladder.deal_in_play(p.match_id), "the other seatings of its deal are still to play"
    for who in ("alice", "bob"):
        listed = [m for m in _get(p, who, "/api/matches")["matches"] if m["id"] == p.match_id]  # type: ignore[index]
        assert listed and listed[0]["withheld"] is True
        assert all(s["score"] is None and s["place"] is None and s["faults"] is None for s in listed[0]["seats"])
        board = _get(p, who, "/api/leaderboard")
        assert board["matches"] == 0 and board["rows"] == [], "the board counts the table once all of it is played"  # type: ignore[index]
        newest = _get(p, who, "/api/matches?limit=10")["matches"][0]  # type: ignore[index]
        assert newest["withheld"] and {s["score"] for s in newest["seats"]} == {None}
    # The organiser sees the result at once.
    mine = _get(p, "organiser", "/api/matches")["matches"][0]  # type: ignore[index]
    assert mine["withheld"] is False and {s["place"] for s in mine["seats"]} <= {1, 2, 3, 4}
    # The site's pages, to a visitor and to alice: no place (a placeN class) and no score of it.
    for who in (None, "alice"):
        for path in ("/matches", "/bots/lowest", "/bots/alice-bot", "/live", "/"):
            html = _site(p, who, path)
            assert "seat place" not in html, (who, path)
        live = p.client.get("/live.json").json()["newest"]
        assert live[0]["withheld"] and all(s["score"] is None for s in live[0]["seats"])
        assert "result to come" in _site(p, who, "/matches")
    # A bot's page tallies its whole history: a withheld match is not in it (its faults and points
    # would tell), but for the organiser.
    state = p.client.app.state.arena  # type: ignore[attr-defined]
    organiser = next(Account(u.id, u.name, u.role, u.alias) for u in p.store.users() if u.role == "organiser")
    hidden = asyncio.run(views.bot_page(state, views.VISITOR, "gone"))
    assert hidden.faults == [] and hidden.points == {}
    seen = asyncio.run(views.bot_page(state, organiser, "gone"))
    assert seen.faults and sum(seen.points.values()) > 0
    # Once every seating of the deal is played (or dropped), the result is everyone's.
    p.store.ladder.tournaments.drop_pending(p.tournament)
    p.store.db.conn.commit()
    shown = _get(p, "bob", "/api/matches")["matches"][0]  # type: ignore[index]
    assert shown["withheld"] is False and {s["place"] for s in shown["seats"]} <= {1, 2, 3, 4}
    after = asyncio.run(views.bot_page(state, views.VISITOR, "gone"))
    assert (after.faults, after.points) == (seen.faults, seen.points)


def test_participants_never_see_another_bot_s_address_the_organiser_does(played: Played) -> None:
    p = played
    p.store.ladder.tournaments.drop_pending(p.tournament)  # the record is shown once its deal is played
    p.store.db.conn.commit()
    everywhere = list(p.addresses.values())
    seats = {who: _get(p, who, f"/api/matches/{p.match_id}") for who in ("organiser", "alice", "bob")}
    assert {s["bot"]: s["address"] for s in seats["organiser"]["seats"]} == p.addresses  # type: ignore[index]
    for who in ("alice", "bob"):
        shown = {s["bot"]: s["address"] for s in seats[who]["seats"]}  # type: ignore[index]
        expected = {n: (p.addresses[n] if who == "alice" and n == "alice-bot.v1" else None) for n in p.addresses}
        assert shown == expected, who
    # The unreachable house bot's fault says why, not where it listens.
    gone = next(s["seat"] for s in seats["bob"]["seats"] if s["bot"] == "gone.v1")  # type: ignore[index]
    faults = [f for f in seats["bob"]["faults"] if f["seat"] == gone]  # type: ignore[index]
    assert faults and faults[0]["detail"], "the house bot's fault is shown"
    organisers = json.dumps(seats["organiser"]["faults"])  # type: ignore[index]
    assert p.addresses["gone.v1"].rpartition(":")[2] in organisers, "the organiser's record names it"
    text = json.dumps(seats["bob"])
    for address in everywhere:
        assert address not in text and f":{address.rpartition(':')[2]}" not in text, address
    others = [a for n, a in p.addresses.items() if n != "alice-bot.v1"]
    assert not any(a in json.dumps(seats["alice"]) for a in others)
    # Nor on the site's replay of it, to a visitor or to a participant.
    for who in (None, "bob", "alice"):
        html = _site(p, who, f"/matches/{p.match_id}")
        assert not any(f":{a.rpartition(':')[2]}" in html for a in others), who
