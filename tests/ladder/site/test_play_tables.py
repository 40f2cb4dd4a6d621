"""/play's bounds without a browser or a server (Starlette's ASGI test client): one table per
participant, nobody at another's table, a visitor refused unless ``[play] guests``, the arena's cap.
Their house bots are addresses nobody listens at: a table then waits for them (the launcher's startup
timeout) without a process started, long enough for each check, and is ended by the test.

Then a table left alone, its house bots started for real: a person who stops answering is
substituted and the match recorded; a table nobody starts closes, unrecorded."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ladder.arena.accounts import Account, add_user
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.state import ArenaState
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import Ratings, sync_house
from ladder.bots.launcher import free_port
from ladder.site import tables
from ladder.site.tables import PlayTable, Tables
from ladder.store import Store
from referee.record import MatchRecord


def _csrf(client: TestClient, path: str) -> str:
    page = client.get(path)
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def _sign_in(client: TestClient, token: str) -> None:
    r = client.post("/signin", data={"csrf": _csrf(client, "/signin"), "token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text


def _sit(client: TestClient, *opponents: str) -> tuple[int, str]:
    """POST the /play form; (the status, where it sends the person)."""
    data = {"csrf": _csrf(client, "/signin"), "opponent": list(opponents or ("a", "b", "c"))}
    r = client.post("/play", data=data, follow_redirects=False)
    return r.status_code, r.headers.get("location", "")


async def _end_tables(app: object) -> None:
    for t in list(app.state.site_tables.by_id.values()):  # type: ignore[attr-defined]
        if t.task is not None:
            t.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await t.task


@contextlib.contextmanager
def _arena(tmp_path: Path, **play: object) -> Iterator[tuple[TestClient, dict[str, str]]]:
    nobody = [f"127.0.0.1:{free_port()}" for _ in range(3)]
    cfg = ArenaConfig(house=tuple(HouseBot(n, address=a) for n, a in zip("abc", nobody, strict=True)), **play)  # type: ignore[arg-type]
    store = ArenaStore(tmp_path / "arena.db")
    tokens = {}
    for name in ("organiser", "alice", "bob"):
        _account, tokens[name] = add_user(store, name, organiser=name == "organiser")
    sync_house(store, cfg)
    store.close()
    app = build_app(tmp_path, cfg, background=False)
    with TestClient(app) as client:
        try:
            yield client, tokens
        finally:
            client.portal.call(_end_tables, app)  # type: ignore[union-attr]


def test_one_table_per_participant_and_nobody_at_anothers(tmp_path: Path) -> None:
    with _arena(tmp_path) as (client, tokens):
        _sign_in(client, tokens["alice"])
        form = client.get("/play")
        assert form.status_code == 200 and form.text.count('<select name="opponent">') == 3
        status, where = _sit(client)
        assert status == 303 and where.startswith("/play/tables/"), (status, where)
        page = client.get(where)
        assert page.status_code == 200 and 'src="/play/static/play.js"' in page.text
        assert f'data-base="{where}"' in page.text
        # A second table while the first is open: refused, the first one named.
        status, _ = _sit(client)
        assert status == 409
        assert where in client.get("/play").text
        # The table's POSTs: JSON with the CSRF token, from this site.
        csrf = client.cookies["hearts_csrf"]
        json_headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
        no_token = {"Content-Type": "application/json"}
        assert client.post(f"{where}/start", content="{}", headers=no_token).status_code == 403
        as_text = {**json_headers, "Content-Type": "text/plain"}
        assert client.post(f"{where}/start", content="{}", headers=as_text).status_code == 415
        other = {**json_headers, "Origin": "http://elsewhere.example"}
        assert client.post(f"{where}/start", content="{}", headers=other).status_code == 403
        assert client.post(f"{where}/bogus", content="{}", headers=json_headers).status_code == 404
        r = client.post(f"{where}/answer", content='{"id": 1, "answer": {}}', headers=json_headers)
        assert r.status_code == 409 and "over" in r.json()["reason"]  # nothing asked yet
        # Bob sees no table at alice's address and can act at none.
        _sign_in(client, tokens["bob"])
        assert client.get(where).status_code == 404
        bob_headers = {**json_headers, "X-CSRF-Token": client.cookies["hearts_csrf"]}
        assert client.post(f"{where}/start", content="{}", headers=bob_headers).status_code == 404
        assert client.get(f"{where}/events").status_code == 404


def test_a_visitor_is_refused_unless_guests_may_play(tmp_path: Path) -> None:
    with _arena(tmp_path) as (client, _tokens):
        page = client.get("/play")
        assert page.status_code == 200 and "sign in to play" in page.text and "play-form" not in page.text
        status, where = _sit(client)
        assert status == 401 and not where


@pytest.mark.parametrize("tables", [1])
def test_guests_play_as_guest_within_the_arenas_cap(tmp_path: Path, tables: int) -> None:
    with _arena(tmp_path, play_guests=True, play_tables=tables) as (client, tokens):
        status, where = _sit(client)
        assert status == 303
        (table,) = client.app.state.site_tables.by_id.values()  # type: ignore[attr-defined]
        assert table.seat.name == "guest" and where.endswith(table.id)
        _sign_in(client, tokens["alice"])
        status, _ = _sit(client)
        assert status == 503  # every table (one) is taken


# -- a table left alone: the house bots started for real (processes), no page, no server ---------------

ALICE = Account(2, "alice", "participant", "")  # the owner "user:2" of these tables

HOUSE = (
    HouseBot("random", command="python -m clients.bots.random --port {port} --seed 1"),
    HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),
    HouseBot("heuristic", command="python -m clients.bots.heuristic --port {port}"),
)


def _state(tmp_path: Path) -> ArenaState:
    cfg = ArenaConfig(house=HOUSE, play_target=1, budget_ms=300, bank_ms=3000)
    store = ArenaStore(tmp_path / "arena.db")
    add_user(store, "organiser", organiser=True)
    sync_house(store, cfg)
    store.close()
    return ArenaState(dir=tmp_path, cfg=cfg, ratings=Ratings())


def _only_match(tmp_path: Path) -> MatchRecord | None:
    with Store(tmp_path / "arena.db", readonly=True) as store:
        ids = list(store.match_ids())
        return store.load_match(ids[0]) if ids else None


@pytest.mark.slow
def test_a_person_who_leaves_or_stops_answering_is_substituted_and_the_match_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page open but nobody answering: the clock runs out twice, then the person counts as away and
    the substitutes finish the match at once; it is recorded with the person's seat."""
    monkeypatch.setattr(tables, "DECISION_S", 0.3)
    state = _state(tmp_path)

    watching: list[Any] = []

    async def sit() -> PlayTable:
        watching.append(state.hub.subscribe(organiser=False, address="10.0.0.9"))  # a visitor of the live page
        t = await Tables().open(state, "user:2", "alice", ["random", "lowest", "heuristic"], ALICE)
        t.seat.join()  # a page is open, and nobody answers at it
        t.table.ask_to_start(0)
        assert t.task is not None
        await asyncio.wait_for(t.task, 120)
        return t

    t = asyncio.run(sit())
    assert t.done
    record = _only_match(tmp_path)
    assert record is not None and record.tournament_id is None
    assert (record.seats[0].bot, record.seats[0].kind, record.seats[0].forfeit) == ("alice", "human", False)
    mine = [f for f in record.faults if f.seat == 0]
    assert [f.kind.value for f in mine[:2]] == ["timeout", "timeout"] and "deadline" in mine[0].detail
    assert all("nobody at the table" in f.detail for f in mine[2:]) and len(mine) > 2
    assert all(p.substituted for p in record.plays if p.seat == 0)
    # The live page followed it card by card, as it does the ladder's matches, and it left when it ended.
    events, _, _ = state.hub.take(watching[0])
    plays = [e.data["play"]["card"] for e in events if e.kind == "play" and e.data["match"] == record.match_id]
    assert plays == [p.card for p in record.plays]
    assert not state.hub.in_play()


@pytest.mark.slow
def test_a_table_nobody_starts_closes_unrecorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "START_S", 0.5)
    state = _state(tmp_path)

    async def sit() -> Tables:
        ts = Tables()
        t = await ts.open(state, "user:2", "alice", ["random", "lowest", "heuristic"], ALICE)
        assert t.task is not None
        await asyncio.wait_for(t.task, 60)
        return ts

    ts = asyncio.run(sit())
    assert ts.of("user:2") is None and _only_match(tmp_path) is None
    (t,) = ts.by_id.values()
    assert t.seat.events[-1]["type"] == "closed"


def test_an_anonymous_arena_seats_a_participant_by_their_alias(tmp_path: Path) -> None:
    with _arena(tmp_path, anonymous=True) as (client, tokens):
        _sign_in(client, tokens["alice"])
        status, _ = _sit(client)
        assert status == 303
        (table,) = client.app.state.site_tables.by_id.values()  # type: ignore[attr-defined]
        store = ArenaStore(tmp_path / "arena.db")
        alias = next(u.alias for u in store.users() if u.name == "alice")
        store.close()
        assert table.seat.name == alias != "alice"


def test_any_bot_on_the_ladder_may_be_seated_by_the_name_the_person_sees(tmp_path: Path) -> None:
    """Besides the house bots, a participant may seat any bot with a valid version, their own among
    them: another's by its alias while the anonymous arena hides names (its real name is never in the
    form, and the table is told the alias), and a hosted bot only where its address is not this machine."""
    with _arena(tmp_path, anonymous=True) as (client, tokens):
        store = ArenaStore(tmp_path / "arena.db")
        users = {u.name: u for u in store.users()}
        hosted = (("bob", "bob-bot", "Heron", "192.0.2.7:50051"), ("alice", "my-bot", "Wren", "127.0.0.1:50052"))
        for owner, bot, alias, address in hosted:
            bot_id = store.add_bot(bot, users[owner].id, alias)
            store.add_version(bot_id, users[owner].id, status=VersionStatus.VALID, kind="address", address=address)
        store.close()
        _sign_in(client, tokens["alice"])
        form = client.get("/play").text
        assert "Heron" in form and "bob-bot" not in form  # bob's bot by its alias alone
        assert "my-bot (yours)" in form and "a (house)" in form
        status, _ = _sit(client, "a", "Heron", "b")
        assert status == 303
        (table,) = client.app.state.site_tables.by_id.values()  # type: ignore[attr-defined]
        assert table.opponents == ["a", "Heron", "b"]
        # Alice's own hosted bot names this machine: it is refused, as the ladder refuses it.
        client.portal.call(_end_tables, client.app)  # type: ignore[union-attr]
        client.app.state.site_tables.by_id.clear()  # type: ignore[attr-defined]
        status, _ = _sit(client, "my-bot", "a", "b")
        assert status == 400
