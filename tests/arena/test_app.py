"""The API through Starlette's ASGI test client (no server, no background work): the answers the
HTTP tests do not need a running ladder for."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from arena.accounts import add_user
from arena.app import API, build_app
from arena.config import ArenaConfig
from arena.store import ArenaStore


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
        assert client.get("/api/bots/nosuch", headers=h).json() == {"error": "no bot 'nosuch' in this arena"}
        assert client.get("/api/matches?limit=x", headers=h).status_code == 400
        assert client.get("/api/matches/t9-000001", headers=h).status_code == 404
        assert client.get("/api/leaderboard?board=final", headers=h).status_code == 404
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
    from arena.app import MAX_WAITING

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
