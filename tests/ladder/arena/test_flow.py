"""The whole flow on a real arena: two participants; alice submits a Python bot archive and a broken
one (it crashes on PlayCard), bob a bot he hosts himself (by address); the good ones are validated
and play, the broken one is refused with its report, and the ladder fills. The arena is anonymous:
bob never sees alice's names, in any response, until the organiser reveals them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest
from arena_helpers import BROKEN_BOT, GOOD_BOT, HOUSE3, ROOT, Arena, hearts, make_arena, write_bot

from ladder.bots.launcher import free_port

pytestmark = pytest.mark.slow  # whole processes and servers


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in folder.iterdir():
            zf.write(p, p.name)
    return buf.getvalue()


def _is_data(r: httpx.Response) -> None:
    """Every answer is JSON data, never markup a browser would render."""
    r.read()
    assert r.headers["content-type"] == "application/json", r.request.url
    assert r.headers["x-content-type-options"] == "nosniff"


def _everything(a: Arena, token: str) -> list[str]:
    """The text of every GET endpoint's answer for this token (each bot, version and match too)."""
    out = []
    with a.client(token) as c:
        c.event_hooks["response"] = [_is_data]
        for path in (
            "/api/status",
            "/api/me",
            "/api/leaderboard",
            "/api/leaderboard?versions=all",
            "/api/bots",
            "/api/matches?limit=200",
            "/api/live",
        ):
            out.append(c.get(path).text)
        for b in c.get("/api/bots").json()["bots"]:
            out.append(c.get(f"/api/bots/{b['name']}").text)
            for v in c.get(f"/api/bots/{b['name']}/versions").json()["versions"]:
                out.append(c.get(f"/api/bots/{b['name']}/versions/{v['number']}").text)
                out.append(c.get(f"/api/bots/{b['name']}/versions/{v['number']}/log").text)
        for m in c.get("/api/matches?limit=200").json()["matches"]:
            out.append(c.get(f"/api/matches/{m['id']}").text)
    return out


def test_two_participants_submit_validate_play_and_stay_anonymous(tmp_path: Path, arena_factory: list[Arena]) -> None:
    a = make_arena(tmp_path, house=HOUSE3, classroom="anonymous = true")
    arena_factory.append(a)
    alice, bob = a.add_user("alice"), a.add_user("bob")
    a.serve()
    good = write_bot(tmp_path / "good", GOOD_BOT)
    broken = write_bot(tmp_path / "broken", BROKEN_BOT)
    # alice: a directory through hearts submit, which waits for the verdict and prints the report.
    r = hearts("submit", str(good), "--arena", a.url, "--token", alice, "--bot", "alice-lowbot", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "valid: it plays on the ladder" in r.stdout and "passed" in r.stdout
    # The broken bot: refused with its report, exit status 1.
    r = hearts("submit", str(broken), "--arena", a.url, "--token", alice, "--bot", "alice-crasher", check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "refused: it never plays" in r.stdout
    with a.client(alice) as c:
        v = c.get("/api/bots/alice-crasher/versions/1").json()
        assert v["status"] == "failed" and v["validation_report"]["ok"] is False
        assert any(ch["outcome"] == "fail" for ch in v["validation_report"]["checks"])
    # bob hosts his bot himself and submits its address.
    port = free_port()
    hosted = subprocess.Popen(
        [sys.executable, "-m", "ladder.cli", "bot", "serve", "heuristic", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        r = hearts(
            "submit",
            "--address",
            f"127.0.0.1:{port}",
            "--arena",
            a.url,
            "--token",
            bob,
            "--bot",
            "bobs-bot",
            check=False,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        # The ladder fills: both good bots play, the broken one never does.
        board = a.wait_for(
            alice,
            lambda b: (
                {"alice-lowbot", "random", "lowest", "heuristic"} <= {r["bot"] for r in b["rows"]}
                and all(r["games"] >= 4 for r in b["rows"])
                and len(b["rows"]) == 5
            ),
            path="/api/leaderboard",
            timeout=120,
        )
        assert "alice-crasher" not in json.dumps(board)
        mine = next(r for r in board["rows"] if r["bot"] == "alice-lowbot")
        assert mine["mine"] and mine["owner"] == "alice"
        # Auth: bob may not touch alice's bots, nor the organiser's actions.
        with a.client(bob) as c:
            assert c.post(
                "/api/bots/alice-lowbot/versions", content=_zip(good), headers={"Content-Type": "application/zip"}
            ).status_code in (403, 404)
            alias = next(
                b["name"]
                for b in c.get("/api/bots").json()["bots"]
                if not b["mine"] and not b["house"] and b["name"] != "bobs-bot"
            )
            assert c.post(f"/api/bots/{alias}/versions", json={"address": "127.0.0.1:1"}).status_code == 403
            assert c.get(f"/api/bots/{alias}/versions/1/log").status_code == 403
            assert c.get(f"/api/bots/{alias}/versions/1").json()["validation_report"] is None
            for path in ("/api/admin/pause", "/api/admin/resume", "/api/admin/reveal", "/api/admin/final"):
                assert c.post(path).status_code == 403
            assert c.get("/api/admin/users").status_code == 403
        with a.client(alice) as c:
            assert "alice-crasher.v1.log" in c.get("/api/bots/alice-crasher/versions/1/log").json()["log"]
            assert c.get("/api/bots/alice-lowbot/versions/1/log").status_code == 200
        # Anonymity: no answer to bob names alice or her bots; alice sees her own names.
        for text in _everything(a, bob):
            assert "alice" not in text, text[:500]
        assert any("alice-lowbot" in t for t in _everything(a, alice))
        # Revealed: the names are everyone's.
        with a.client(a.organiser) as c:
            assert c.post("/api/admin/reveal").status_code == 200
        with a.client(bob) as c:
            assert "alice-lowbot" in c.get("/api/leaderboard").text
            # The newest shown: a match whose deal other seatings still play answers 409 until they are recorded.
            answers = [c.get(f"/api/matches/{m['id']}") for m in c.get("/api/matches?limit=50").json()["matches"]]
            assert all(r.status_code in (200, 409) for r in answers)
            record = next(r.json() for r in answers if r.status_code == 200)
            assert record["schema"] == "hearts-arena/match" and len(record["plays"]) > 0
        # Each seat records what guarded its bot: the house bots started as they are, bob's served by
        # him, alice's in the arena's sandbox (limits only where bubblewrap cannot run), as validated.
        with a.client(a.organiser) as c:
            kinds = {
                s["bot"].rsplit(".v", 1)[0]: s["isolation"].partition(":")[0]
                for m in c.get("/api/matches?limit=50").json()["matches"]
                for s in c.get(f"/api/matches/{m['id']}").json()["seats"]
            }
            report = c.get("/api/bots/alice-lowbot/versions/1").json()["validation_report"]
        assert kinds["random"] == kinds["lowest"] == kinds["heuristic"] == "none", kinds
        assert kinds["bobs-bot"] == "remote" and kinds["alice-lowbot"] in ("sandbox", "limits-only"), kinds
        assert report["version"] == 2 and report["isolation"].partition(":")[0] == kinds["alice-lowbot"]
        # bob's server goes down: that costs only his results; the ladder goes on without him.
        hosted.terminate()
        hosted.wait()
        status = a.wait_for(a.organiser, lambda s: any("bobs-bot" in e for e in s["events"]), timeout=120)
        after = status["matches"]
        a.wait_for(a.organiser, lambda s: s["matches"] >= after + 4, timeout=120)
        with a.client(a.organiser) as c:
            newest = c.get("/api/matches?limit=4").json()["matches"]
        for m in newest:
            assert "bobs-bot.v1" not in [s["bot"] for s in m["seats"]], "he sits out"
            assert not any(s["forfeit"] for s in m["seats"]), m  # which seat, and what the list says of it
    finally:
        hosted.terminate()
        hosted.wait()
