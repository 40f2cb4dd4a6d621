"""A bot cannot tell its validation from the ladder by what it is sent: a hosted bot that writes down
every call (tests/ladder/arena/watching_bot.py) is validated and then plays on a real anonymous arena, and
what it saw in each has the same shape: the handshake, the methods called, the match ids, the names
at the table, the rules and the clock of every request."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from arena_helpers import HOUSE3, ROOT, Arena, make_arena

from ladder.bots.launcher import free_port

pytestmark = pytest.mark.slow  # whole processes and servers

LADDER_ID = re.compile(r"t\d+-\d{6}")


def _views(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["request"]["view"] for c in calls if "view" in c.get("request", {})]


def _shape(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """What a bot could compare of two sets of calls."""
    views = _views(calls)
    return {
        "methods": {c["method"] for c in calls if "/Notify" not in c["method"]},
        "handshakes": {json.dumps(c["request"], sort_keys=True) for c in calls if c["method"].endswith("/Handshake")},
        "rules": {json.dumps(v["rules"], sort_keys=True) for v in views},
        "budget_ms": {v.get("budgetMs") for v in views},
        "players": {len(v["playerNames"]) for v in views},
    }


def test_a_bot_that_writes_down_what_it_sees_cannot_tell_its_validation_from_the_ladder(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    a = make_arena(tmp_path, house=HOUSE3, classroom="anonymous = true")
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    seen = tmp_path / "seen.jsonl"
    seen.touch()
    port = free_port()
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "ladder" / "arena" / "watching_bot.py"), str(seen), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    try:
        with a.client(alice) as c:
            r = c.post("/api/bots/watcher/versions", json={"address": f"127.0.0.1:{port}"})
            assert r.status_code == 201, r.text
        v = a.wait_for(alice, lambda v: v["status"] in ("valid", "failed"), path="/api/bots/watcher/versions/1")
        assert v["status"] == "valid", json.dumps(v["validation_report"])[:3000]
        a.wait_for(
            a.organiser,
            lambda m: sum(1 for x in m["matches"] if "watcher.v1" in [s["bot"] for s in x["seats"]]) >= 2,
            path="/api/matches",
            timeout=120,
        )
    finally:
        a.stop()
        bot.terminate()
        bot.wait()
    ended = dt.datetime.fromisoformat(v["validation_report"]["finished_at"]).timestamp()
    calls = [json.loads(line) for line in seen.read_text().splitlines()]
    validation = [c for c in calls if c["t"] <= ended]
    ladder = [c for c in calls if c["t"] > ended]
    assert _views(validation) and _views(ladder), "it was asked in both"
    asked, played = _shape(validation), _shape(ladder)
    assert asked["methods"] <= played["methods"], "the validation calls nothing the ladder never calls"
    for key in ("handshakes", "rules", "budget_ms", "players"):
        assert asked[key] == played[key], key
    # Every match id is the ladder's shape, and no id the validation used is the ladder's own.
    ids = {v["matchId"] for v in _views(validation)}
    assert all(LADDER_ID.fullmatch(i) for i in ids), ids
    assert all(LADDER_ID.fullmatch(v["matchId"]) for v in _views(ladder))
    # One seat and one table in each match, as a tournament seats a bot once at a table.
    for views in (_views(validation), _views(ladder)):
        tables: dict[str, set[tuple[Any, ...]]] = {}
        for v in views:
            tables.setdefault(v["matchId"], set()).add((v.get("seat", 0), *v["playerNames"]))
        assert all(len(t) == 1 for t in tables.values()), {i: t for i, t in tables.items() if len(t) > 1}
    # The names at the table: the bot's own as the ladder tells it, the others ladder bots' names.
    names = {n for v in _views(ladder) for n in v["playerNames"]}
    told = {n for v in _views(validation) for n in v["playerNames"]}
    assert told <= names, told - names
    own = {v["playerNames"][v.get("seat", 0)] for v in _views(ladder)}
    assert own == {v["playerNames"][v.get("seat", 0)] for v in _views(validation)}
    assert not any("watcher" in n or "alice" in n for n in names), "an anonymous board tells it its alias"
