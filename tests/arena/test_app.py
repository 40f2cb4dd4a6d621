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
