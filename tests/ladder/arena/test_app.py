"""The API through Starlette's ASGI test client (no server, no background work): the answers the
HTTP tests do not need a running ladder for."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ladder.arena.accounts import add_user
from ladder.arena.app import API, build_app
from ladder.arena.config import ArenaConfig
from ladder.arena.store import ArenaStore, VersionStatus

pytestmark = pytest.mark.slow  # whole processes and servers


def _app(tmp_path: Path) -> tuple[TestClient, str, str]:
    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    _p, alice = add_user(store, "alice")
    store.close()
    return TestClient(build_app(tmp_path, ArenaConfig(), background=False)), org, alice


def test_errors_say_what_to_do(tmp_path: Path) -> None:
    client, org, alice = _app(tmp_path)
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        assert client.get("/api/status", headers={"Authorization": "Basic x"}).status_code == 401
        assert client.get("/api/bots/nosuch", headers=h).json()["error"].startswith("no bot 'nosuch' that you can see")
        assert client.get("/api/matches?limit=x", headers=h).status_code == 400
        assert client.get("/api/matches/t9-000001", headers=h).status_code == 404
        assert client.get("/api/leaderboard?board=final", headers=h).status_code == 404
        assert client.get("/api/final", headers=h).json()["error"].startswith("no final tournament yet")
        assert client.get("/api/leaderboard?board=other", headers=h).status_code == 400
        r = client.post("/api/bots/bad name/versions", headers=h, json={"address": "127.0.0.1:1"})
        assert r.status_code == 400 and "is not allowed" in r.json()["error"]
        r = client.post("/api/bots/mine/versions", headers=h, json={"adress": "127.0.0.1:1"})
        assert r.status_code == 400 and "HOST:PORT" in r.json()["error"]
        assert client.get("/api/me", headers=h).json()["name"] == "alice"
        assert client.get("/api/leaderboard", headers=h).json()["rows"] == []


def test_openapi_lists_every_endpoint(tmp_path: Path) -> None:
    client, org, _alice = _app(tmp_path)
    with client:
        spec = client.get("/api/openapi.json", headers={"Authorization": f"Bearer {org}"}).json()
    listed = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    assert listed == {(m, p.replace(":int", "")) for m, p, *_ in API}


def test_an_address_that_is_no_host_and_port_is_refused_at_once(tmp_path: Path) -> None:
    client, _org, alice = _app(tmp_path)
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        for address in ("host with space:1", "<script>alert(9)</script>:1", "unix:/tmp/x/bot.sock", "h:"):
            r = client.post("/api/bots/mine/versions", headers=h, json={"address": address})
            assert r.status_code == 400 and "HOST:PORT" in r.json()["error"], address
        assert client.get("/api/bots/mine", headers=h).status_code == 404  # nothing registered by a refusal


def test_one_participant_cannot_hold_the_validation_queue(tmp_path: Path) -> None:
    """The pipeline validates one version at a time: a participant's flood would hold everyone's back."""
    from ladder.arena.actions import MAX_WAITING

    client, org, alice = _app(tmp_path)
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        for i in range(MAX_WAITING):
            r = client.post(f"/api/bots/b{i}/versions", headers=h, json={"address": "10.255.255.1:1"})
            assert r.status_code == 201, r.json()
        r = client.post("/api/bots/more/versions", headers=h, json={"address": "10.255.255.1:1"})
        assert r.status_code == 429 and "waiting" in r.json()["error"]
        organiser = {"Authorization": f"Bearer {org}"}  # the organiser is not held to it
        assert (
            client.post("/api/bots/house/versions", headers=organiser, json={"address": "10.255.255.1:1"}).status_code
            == 201
        )


def test_wrong_tokens_from_one_address_are_refused_unchecked_past_the_limit(tmp_path: Path) -> None:
    """Each wrong token costs the arena a scrypt: past MAX_FAILURES from one address its tokens not
    verified before get 429 with Retry-After, unchecked, on the API and on the sign-in form alike.
    A token that address has signed in with before still works: one student's guessing does not
    lock a classroom behind one address out."""
    from ladder.arena.accounts import MAX_FAILURES

    client, org, alice = _app(tmp_path)
    with client:
        assert client.get("/api/me", headers={"Authorization": f"Bearer {alice}"}).status_code == 200
        uid = alice.split(".")[0]
        for i in range(MAX_FAILURES):
            r = client.get("/api/me", headers={"Authorization": f"Bearer {uid}.guess{i}"})
            assert r.status_code == 401
        r = client.get("/api/me", headers={"Authorization": f"Bearer {uid}.guess-again"})
        assert r.status_code == 429 and "too many wrong tokens" in r.json()["error"]
        assert 0 < int(r.headers["Retry-After"]) <= 60 and r.json()["retry_after_s"] == int(r.headers["Retry-After"])
        # The organiser's token, right but never verified from here, waits out the window too...
        assert client.get("/api/me", headers={"Authorization": f"Bearer {org}"}).status_code == 429
        # ...while alice's, verified before, passes.
        assert client.get("/api/me", headers={"Authorization": f"Bearer {alice}"}).json()["name"] == "alice"
        # The sign-in form says the same, as a page.
        client.get("/signin")
        r = client.post("/signin", data={"token": org, "csrf": client.cookies["hearts_csrf"]}, follow_redirects=False)
        assert r.status_code == 429 and "Too many wrong tokens" in r.text


def test_the_guard_forgets_failures_once_they_leave_its_window(tmp_path: Path) -> None:
    from ladder.arena.accounts import SignInGuard, SignInLimited

    store = ArenaStore(tmp_path / "arena.db")
    _p, bob = add_user(store, "bob")
    now = [1000.0]
    guard = SignInGuard(max_failures=3, window_s=60.0, clock=lambda: now[0])

    async def steps() -> None:
        for t in (0.0, 10.0, 20.0):
            now[0] = 1000.0 + t
            assert await guard.authenticate(store, "1.wrong", "10.0.0.7") is None
        with pytest.raises(SignInLimited) as limited:
            await guard.authenticate(store, bob, "10.0.0.7")
        assert limited.value.retry_after == pytest.approx(40.0)  # the first failure leaves at t=60
        account = await guard.authenticate(store, bob, "10.0.0.8")  # another address is not concerned
        assert account is not None and account.name == "bob"
        now[0] = 1060.5  # the first failure has left: two remain, under the limit
        assert guard.retry_after("10.0.0.7") is None

    try:
        asyncio.run(steps())
    finally:
        store.close()


def test_a_participant_s_versions_are_kept_within_their_storage_quota(tmp_path: Path) -> None:
    """max_stored_bytes bounds all of one participant's versions on disk (archives, files, builds):
    past it an upload is 413, saying how much is used; others, and the organiser, still upload."""
    import io
    import os
    import zipfile

    from ladder.arena.config import Limits

    def archive(size: int) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:  # stored, not deflated: the random bytes count as they are
            zf.writestr("bot.toml", 'command = "python bot.py --port {port}"\n')
            zf.writestr("data.bin", os.urandom(size))
        return buf.getvalue()

    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    _a, alice = add_user(store, "alice")
    _b, bob = add_user(store, "bob")
    store.close()
    cfg = ArenaConfig(limits=Limits(max_stored_bytes=250_000))
    zipped = {"Content-Type": "application/zip"}
    with TestClient(build_app(tmp_path, cfg, background=False)) as client:
        a = {"Authorization": f"Bearer {alice}", **zipped}
        assert client.post("/api/bots/alice-bot/versions", content=archive(50_000), headers=a).status_code == 201
        r = client.post("/api/bots/alice-bot/versions", content=archive(100_000), headers=a)
        assert r.status_code == 413, r.text
        assert "your versions take" in r.json()["error"] and "max_stored_bytes" in r.json()["error"]
        assert len(list((tmp_path / "versions" / "alice-bot").glob("[0-9]*"))) == 2  # version 1: its files, its zip
        b = {"Authorization": f"Bearer {bob}", **zipped}
        assert client.post("/api/bots/bob-bot/versions", content=archive(100_000), headers=b).status_code == 201
        o = {"Authorization": f"Bearer {org}", **zipped}
        assert client.post("/api/bots/alice-bot/versions", content=archive(100_000), headers=o).status_code == 403
        assert client.post("/api/bots/house-x/versions", content=archive(200_000), headers=o).status_code == 201


def test_an_address_on_the_arena_s_own_machine_is_refused_unless_the_organiser_allows_it(tmp_path: Path) -> None:
    """The house bots and the arena listen on this machine: a participant's "bot" at 127.0.0.1:PORT
    would be the organiser's bot playing under the participant's name. Refused at submission, and
    again when the version is validated (a name may resolve elsewhere by then)."""
    import asyncio
    import socket

    from ladder.arena.config import Limits
    from ladder.arena.worker import ArenaWorker

    client, org, alice = _app(tmp_path)
    with client:
        h = {"Authorization": f"Bearer {alice}"}
        for address in ("127.0.0.1:5000", "localhost:5000", "[::1]:5000", "0.0.0.0:5000", f"{socket.gethostname()}:1"):
            r = client.post("/api/bots/copycat/versions", headers=h, json={"address": address})
            assert r.status_code == 400 and "own machine" in r.json()["error"], (address, r.text)
            assert "allow_local_addresses" in r.json()["error"]
        r = client.post("/api/bots/copycat/versions", headers=h, json={"address": "nosuch.invalid:5000"})
        assert r.status_code == 400 and "does not resolve" in r.json()["error"]
        assert client.get("/api/bots/copycat", headers=h).status_code == 404
        # Another machine of the lab is fine; so is the organiser's own bot here.
        assert (
            client.post("/api/bots/hosted/versions", headers=h, json={"address": "10.255.255.1:1"}).status_code == 201
        )
        o = {"Authorization": f"Bearer {org}"}
        assert client.post("/api/bots/org-bot/versions", headers=o, json={"address": "127.0.0.1:1"}).status_code == 201
    allowed = ArenaConfig(limits=Limits(allow_local_addresses=True))
    with TestClient(build_app(tmp_path, allowed, background=False)) as client:
        r = client.post(
            "/api/bots/local/versions", headers={"Authorization": f"Bearer {alice}"}, json={"address": "127.0.0.1:5000"}
        )
        assert r.status_code == 201
    # As if its name had come to resolve here since: the validation refuses it before reaching it.
    store = ArenaStore(tmp_path / "arena.db")
    try:
        hosted = store.version("hosted", 1)
        assert hosted is not None
        store.db.execute("UPDATE arena_versions SET address = 'localhost:1' WHERE id = ?", [hosted.id])
        store.db.conn.commit()
        rebound = store.version("hosted", 1)
        assert rebound is not None and rebound.address == "localhost:1"
        asyncio.run(ArenaWorker(tmp_path, ArenaConfig()).check_version(store, rebound))
        after = store.version("hosted", 1)
        assert after is not None and after.status == "failed"
        assert after.validation_report is not None and "own machine" in after.validation_report["error"]
    finally:
        store.close()


def test_the_live_matches_are_listed_without_their_seeds(tmp_path: Path) -> None:
    """A match's seed deals every hand of it: /api/live, which a bot's author (or a hosted bot with its
    author's token) may read while the match is played, names the matches in play without it."""
    from ladder.arena.scheduler import Standing, next_batch
    from ladder.arena.worker import ArenaWorker
    from ladder.tournament.schedule import match_id

    client, _org, alice = _app(tmp_path)
    with client:
        worker = ArenaWorker(tmp_path, ArenaConfig())  # never started: its batch in play set as _play sets it
        batch = next_batch(
            ["a", "b", "c", "d"], {b: Standing() for b in "abcd"}, players=4, tables=1, start=0, rules="standard"
        )
        worker.live = {match_id(1, m.index): m.to_dict() for m in batch}
        client.app.state.arena.worker = worker  # type: ignore[attr-defined]
        # The third begins (the worker's watcher tells the hub): it is in play, the others queued.
        third = batch[2]
        client.app.state.arena.hub.began(match_id(1, third.index), 1, third.seed, list(third.seats), True)  # type: ignore[attr-defined]
        answer = client.get("/api/live", headers={"Authorization": f"Bearer {alice}"}).json()
    live = answer["live"]
    assert [m["id"] for m in live] == ["t1-000002", "t1-000000", "t1-000001", "t1-000003"], "in play first"
    assert [m["state"] for m in live] == ["playing", "queued", "queued", "queued"]
    assert (answer["playing"], answer["waiting"]) == (1, 3)
    seeds = {str(m.seed) for m in batch}
    assert all("seed" not in m and not seeds & set(map(str, m.values())) for m in live), live


def test_a_match_s_record_waits_until_its_deal_is_played_in_every_seating(tmp_path: Path) -> None:
    """Duplicate deals: every rotation of a table plays the same seed, so a recorded rotation's record
    (its deal, every hand) would show the cards of the rotations still to play. A participant (or a
    hosted bot with its author's token) sees it once every seating is recorded; an organiser at once."""
    import asyncio

    from clients.bots import make_bot
    from ladder.arena.worker import ladder_tournament
    from ladder.site.static_site import build_site
    from ladder.tournament.schedule import build_schedule, match_id
    from referee.match import play_match
    from referee.rules import Rules
    from referee.seats import InProcessSeat

    client, org, alice = _app(tmp_path)
    store = ArenaStore(tmp_path / "arena.db")
    try:
        tid = ladder_tournament(store, ArenaConfig())  # the arena's ladder: its matches are listed
        names = ["lowest-a", "lowest-b", "lowest-c", "lowest-d"]
        store.ladder.tournaments.insert_schedule(tid, build_schedule(names, rules="standard,target=20", seed=4))
        first = store.ladder.tournaments.pending(tid)[0]
        seats = [InProcessSeat(make_bot("lowest"), n) for n in first.seats]
        record = asyncio.run(
            play_match(
                seats,
                Rules.parse(first.rules),
                first.seed,
                match_id=match_id(tid, 0),
                names=list(first.seats),
                tournament_id=tid,
            )
        )
        mid = store.ladder.save_match(record)
        store.ladder.tournaments.mark_recorded(tid, first.index, mid)
        store.db.conn.commit()
        with client:
            a, o = ({"Authorization": f"Bearer {t}"} for t in (alice, org))
            withheld = client.get(f"/api/matches/{mid}", headers=a)
            assert withheld.status_code == 409 and "other seats" in withheld.json()["error"]
            assert str(first.seed) not in withheld.text
            page = client.get(f"/matches/{mid}")  # the web site's replay says so too
            assert page.status_code == 409 and "other seats" in page.text and str(first.seed) not in page.text
            assert client.get(f"/api/matches/{mid}", headers=o).json()["seed"] == first.seed
            build_site(tmp_path, ArenaConfig(), tmp_path / "early")  # a static site built now leaves it out
            assert "still to be played" in (tmp_path / "early" / "matches" / f"{mid}.html").read_text()
            assert str(first.seed) not in "".join(p.read_text() for p in (tmp_path / "early").rglob("*.html"))
            store.ladder.tournaments.drop_pending(tid)  # the other seatings: played or dropped
            store.db.conn.commit()
            assert client.get(f"/api/matches/{mid}", headers=a).json()["seed"] == first.seed
            build_site(tmp_path, ArenaConfig(), tmp_path / "later")
            assert str(first.seed) in (tmp_path / "later" / "matches" / f"{mid}.html").read_text()
    finally:
        store.close()


@pytest.mark.parametrize("anonymous", [True, False])
def test_a_name_a_participant_may_not_use_answers_alike_whether_it_exists_or_not(
    tmp_path: Path, anonymous: bool
) -> None:
    """Reading a name and submitting to it answer alike (status and message) for a name the viewer
    sees no bot by: another participant's hidden name, a user's alias, a name nobody has. Submitting
    to one of them told an anonymous board's real names apart ("another participant's", 403) from
    the free ones. A participant's own bots, and the bots she can see, answer as before."""
    from ladder.arena.accounts import new_alias

    store = ArenaStore(tmp_path / "arena.db")
    _o, org = add_user(store, "organiser", organiser=True)
    a, alice = add_user(store, "alice")
    b, bob = add_user(store, "bob")
    bot_id = store.add_bot("alice-bot", a.id, new_alias(store, "alice-bot"))
    store.add_version(bot_id, a.id, status=VersionStatus.VALID, kind="address", address="10.255.255.1:1")
    bot_alias = store.bot("alice-bot").alias  # type: ignore[union-attr]
    store.close()
    client = TestClient(build_app(tmp_path, ArenaConfig(anonymous=anonymous), background=False))
    body = {"address": "10.255.255.1:2"}
    with client:
        h = {"Authorization": f"Bearer {bob}"}

        def read(name: str) -> tuple[int, Any]:
            r = client.get(f"/api/bots/{name}", headers=h)
            return r.status_code, r.json()

        def submit(name: str) -> tuple[int, Any]:
            r = client.post(f"/api/bots/{name}/versions", headers=h, json=body)
            return r.status_code, r.json()

        unseen = ["alice-bot", a.alias] if anonymous else [a.alias, bot_alias]  # names bob sees no bot by
        for name in unseen:
            assert read(name) == submit(name), name
            assert read(name)[0] == 404 and read(name)[1]["error"] == read("nobody-has-it")[1]["error"].replace(
                "nobody-has-it", name
            ), name
            for path in (
                f"/api/bots/{name}/versions",
                f"/api/bots/{name}/versions/1",
                f"/api/bots/{name}/versions/1/log",
            ):
                r = client.get(path, headers=h)
                assert (r.status_code, r.json()) == read(name), path
        # What bob can see answers as it did: the bot by its shown name is another participant's.
        shown = bot_alias if anonymous else "alice-bot"
        assert read(shown)[0] == 200
        assert submit(shown)[0] == 403 and "another participant's" in submit(shown)[1]["error"]
        # alice's own bot is hers, by its name, whatever the board shows others.
        mine = {"Authorization": f"Bearer {alice}"}
        assert client.get("/api/bots/alice-bot", headers=mine).status_code == 200
        assert client.post("/api/bots/alice-bot/versions", headers=mine, json=body).status_code == 201
        assert client.post("/api/bots/bob-bot/versions", headers=h, json=body).status_code == 201  # a free name
        assert b.id and org
