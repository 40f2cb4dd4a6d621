"""A participant asks their own bot again at a decision of a match it played, through the API and the
site's match page (the ASGI app, a real SQLite file, a match played over gRPC against real bot servers
on loopback, the asked version started in the real sandbox): the answer beside the recorded one,
judged; nobody asks another's bot, no seat but their own, no deal still in play, one ask at a time."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from arena_helpers import GOOD_BOT, write_bot
from starlette.testclient import TestClient

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread
from ladder.arena import asking
from ladder.arena.accounts import Account, add_user, new_alias
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.errors import TooMany
from ladder.arena.state import ArenaState
from ladder.arena.store import ArenaStore, VersionStatus
from ladder.arena.worker import Ratings, ladder_tournament, sync_house
from ladder.ask import steps
from ladder.tournament.schedule import build_schedule, match_id
from referee.match import MatchSettings, play_match
from referee.rules import Card, Phase, Rules
from referee.seats import GrpcSeat, Seat

pytestmark = pytest.mark.slow  # bot processes in the sandbox

RULES = "standard,target=20"
HOUSE = (
    HouseBot("lowest", command="python -m clients.bots.lowest --port {port}"),
    HouseBot("random", command="python -m clients.bots.random --port {port}"),
    HouseBot("heuristic", command="python -m clients.bots.heuristic --port {port}"),
)


@dataclass
class Played:
    client: TestClient
    store: ArenaStore
    dir: Path
    cfg: ArenaConfig
    tokens: dict[str, str]
    accounts: dict[str, Account]
    match_id: str
    tournament: int
    alice_seat: int


def _play(root: Path, *, in_play: bool) -> Iterator[Played]:
    """One match recorded: alice's bot (its seat played by a random bot on loopback, so its answers
    and her submitted Lowest's differ at some plays) and the three house bots. Her bot's version 1 is
    that Lowest as an archive (started in the sandbox when asked); version 2 a bot she says she
    hosts on this machine's loopback, which an arena refuses to reach. ``in_play``: the deal's other
    seatings are still to be played."""
    cfg = ArenaConfig(rules=RULES, house=HOUSE)
    store = ArenaStore(root / "arena.db")
    org_account, org = add_user(store, "organiser", organiser=True)
    a, alice = add_user(store, "alice")
    b, bob = add_user(store, "bob")
    sync_house(store, cfg)
    folder = write_bot(root / "versions" / "alice-bot-1", GOOD_BOT)
    os.chmod(folder, 0o755)
    servers: list[ThreadedBotServer] = [
        # Seeded: the recorded match, and so the plays the tests ask again, are the same at every run.
        start_in_thread(make_bot(n, seed=i))
        for i, n in enumerate(("random", "lowest", "random", "heuristic"))
    ]
    try:
        bot_id = store.add_bot("alice-bot", a.id, new_alias(store, "alice-bot"))
        store.add_version(
            bot_id,
            a.id,
            status=VersionStatus.VALID,
            kind="archive",
            path=str(folder),
            command="python bot.py --port {port}",
            language="python",
        )
        store.add_version(bot_id, a.id, status=VersionStatus.VALID, kind="address", address=servers[0].address)
        addresses = {
            "alice-bot.v1": servers[0].address,
            "lowest.v1": servers[1].address,
            "random.v1": servers[2].address,
            "heuristic.v1": servers[3].address,
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
        if not in_play:
            store.ladder.tournaments.drop_pending(tid)
        store.db.conn.commit()
        client = TestClient(build_app(root, cfg, background=False))
        with client:
            yield Played(
                client,
                store,
                root,
                cfg,
                {"organiser": org, "alice": alice, "bob": bob},
                {"organiser": org_account, "alice": a, "bob": b},
                mid,
                tid,
                list(first.seats).index("alice-bot.v1"),
            )
    finally:
        for s in servers:
            s.stop()
        store.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    yield from _play(tmp_path_factory.mktemp("asking"), in_play=False)


def _api(p: Played, who: str | None, method: str, path: str, body: object = None) -> tuple[int, dict]:  # type: ignore[type-arg]
    headers = {"Authorization": f"Bearer {p.tokens[who]}"} if who else {}
    r = p.client.request(method, path, headers=headers, json=body)
    return r.status_code, r.json()


def _steps(p: Played) -> list:  # type: ignore[type-arg]
    return list(steps(p.store.ladder.load_match(p.match_id)))


def test_the_owner_asks_a_play_again_and_the_sandboxed_bot_answers_beside_the_record(played: Played) -> None:
    p = played
    code, listed = _api(p, "alice", "GET", f"/api/matches/{p.match_id}/ask")
    assert code == 200, listed
    assert listed["schema"] == "hearts-arena/askable" and listed["version"] == 1
    assert listed["seats"] == {str(p.alice_seat): {"bot": "alice-bot", "versions": [2, 1]}}
    every = _steps(p)
    mine = [s for s in every if s.seat == p.alice_seat]
    assert [d["step"] for d in listed["steps"]] == [s.number for s in mine], "her seat's decisions, and only hers"
    # One play where her Lowest would play the recorded (random) card, one where it would not.
    plays = [s for s in mine if s.phase is Phase.PLAY and len(s.observation.legal) > 1]
    lowest = {s.number: min(c.rank for c in s.observation.legal) for s in plays}
    same = next(
        s
        for s in plays
        if s.recorded.rank == lowest[s.number] and sum(c.rank == lowest[s.number] for c in s.observation.legal) == 1
    )
    other = next(s for s in plays if s.recorded.rank != lowest[s.number])
    for step, differs in ((same, False), (other, True)):
        code, asked = _api(p, "alice", "POST", f"/api/matches/{p.match_id}/ask", {"step": step.number, "version": 1})
        assert code == 200, asked
        assert asked["schema"] == "hearts-arena/ask" and asked["bot"] == "alice-bot.v1"
        assert asked["seat"] == p.alice_seat and asked["decision"] == "play" and asked["step"] == step.number
        assert Card.parse(_card(asked["answer"])).rank == lowest[step.number], asked
        assert asked["stands"] is True and asked["judged"].startswith("legal")
        assert asked["differs"] is differs, asked
        assert asked["latency_ms"] > 0 and asked["recorded_latency_ms"] == step.latency_ms
    # Its output is its owner's to read, with the version's log.
    code, log = _api(p, "alice", "GET", "/api/bots/alice-bot/versions/1/log")
    assert code == 200 and "logs/ask/alice-bot.v1.log" in log["log"]


def _card(symbol: str) -> str:
    """A card written with its suit's symbol (``Q♥``) as ``Card.parse`` reads it (``QH``)."""
    return symbol.replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C").replace("10", "T")


def test_nobody_asks_anothers_bot_nor_another_seat_nor_a_step_that_is_not(played: Played) -> None:
    p = played
    path = f"/api/matches/{p.match_id}/ask"
    every = _steps(p)
    theirs = next(s for s in every if s.seat != p.alice_seat and s.asked)
    mine = next(s for s in every if s.seat == p.alice_seat)
    assert _api(p, "bob", "GET", path)[0] == 403
    assert _api(p, "bob", "POST", path, {"step": mine.number})[0] == 403
    assert _api(p, None, "POST", path, {"step": mine.number})[0] == 401
    code, said = _api(p, "alice", "POST", path, {"step": theirs.number})
    assert code == 403 and "not yours" in said["error"], said
    code, said = _api(p, "alice", "POST", path, {"step": len(every)})
    assert code == 400 and f"0 to {len(every) - 1}" in said["error"], said
    code, said = _api(p, "alice", "POST", path, {"step": mine.number, "version": 9})
    assert code == 400 and "no valid version 9" in said["error"], said
    for body in ({"step": "3"}, {"step": -1}, {"step": True}, [1]):
        assert _api(p, "alice", "POST", path, body)[0] == 400, body
    assert _api(p, "alice", "POST", "/api/matches/t9-000000/ask", {"step": 0})[0] == 404
    # Her version 2 names this machine's loopback: the arena does not reach it to ask it either.
    code, said = _api(p, "alice", "POST", path, {"step": mine.number, "version": 2})
    assert code == 400 and "own machine" in said["error"], said


def test_a_deal_still_played_in_other_seats_is_not_asked(tmp_path: Path) -> None:
    for p in _play(tmp_path, in_play=True):
        code, said = _api(p, "alice", "GET", f"/api/matches/{p.match_id}/ask")
        assert code == 409 and "other seats" in said["error"], said
        code, said = _api(p, "alice", "POST", f"/api/matches/{p.match_id}/ask", {"step": 0})
        assert code == 409, said


def test_one_ask_at_a_time(played: Played) -> None:
    p = played
    state = ArenaState(p.dir, p.cfg, Ratings())
    mine = next(s for s in _steps(p) if s.seat == p.alice_seat)

    async def while_another_asks() -> None:
        async with state.asking:
            with pytest.raises(TooMany, match="try again"):
                await asking.ask_again(state, p.accounts["alice"], p.match_id, mine.number, 1)

    asyncio.run(while_another_asks())


def _signed_in(p: Played, who: str) -> str:
    """Signs ``who`` in on the site (the form, as a browser sends it); returns the CSRF token."""
    p.client.cookies.clear()
    page = p.client.get("/signin")
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = p.client.post("/signin", data={"token": p.tokens[who], "csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return p.client.cookies["hearts_csrf"]


def test_the_match_page_asks_the_decision_the_replay_shows_and_shows_the_answer(played: Played) -> None:
    p = played
    every = _steps(p)
    mine = [s for s in every if s.seat == p.alice_seat and s.phase is Phase.PLAY]
    # The replay's step that shows her first play: the deal, the pass, then the plays in order.
    play_index = [s for s in every if s.phase is Phase.PLAY].index(mine[0])
    page = p.client.get(f"/matches/{p.match_id}")
    assert "Ask your bot again" not in page.text, "a visitor has nothing to ask"
    _signed_in(p, "bob")
    assert "Ask your bot again" not in p.client.get(f"/matches/{p.match_id}").text, "nor has bob"
    csrf = _signed_in(p, "alice")
    replay_step = 2 + play_index  # hand 1: its deal and its pass come first
    html = p.client.get(f"/matches/{p.match_id}?step={replay_step}").text
    assert "Ask your bot again" in html
    assert f'<option value="{mine[0].number}" data-replay="{replay_step}" selected>' in html
    r = p.client.post(
        f"/matches/{p.match_id}/ask",
        data={"csrf": csrf, "step": str(mine[0].number), "version": "1", "at": str(replay_step)},
    )
    assert r.status_code == 200, r.text
    assert 'id="asked"' in r.text and "alice-bot.v1" in r.text and "Differs" in r.text
    assert f'<option value="{mine[0].number}" data-replay="{replay_step}" selected>' in r.text
    # An ask the arena refuses is said on the page, with the status of the refusal.
    r = p.client.post(f"/matches/{p.match_id}/ask", data={"csrf": csrf, "step": str(mine[0].number), "version": "2"})
    assert r.status_code == 400 and 'id="ask-error"' in r.text and "own machine" in r.text
    # Without the form's token, nothing is asked.
    r = p.client.post(f"/matches/{p.match_id}/ask", data={"csrf": "forged", "step": str(mine[0].number)})
    assert r.status_code == 403
