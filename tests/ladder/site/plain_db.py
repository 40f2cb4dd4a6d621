"""A plain tournament database, as ``hearts tournament run`` and ``hearts match`` write it (no arena's
tables), for the tests of a plain database's pages: a tournament of four in-process bots (one with
a description of markup), a single match, and a match stored with a bot's name of markup (the
registry refuses such a name; a record written before it did, or by another tool, may hold one), its
address and a fault whose texts are markup."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from cli_runner import ok

from ladder.export import match_from_json, match_to_json
from ladder.store import Store
from referee.record import FaultKind

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
ADDRESS = "127.0.0.1:50999"  # where the bot of markup listened, as its record says
RULES = "standard,target=30"  # short matches: these tests are about the pages, not the game

BOTS = f"""
[bots.random]
module = "clients.bots.random:RandomBot"
description = "{SCRIPT} picks at random"
[bots.lowest]
module = "clients.bots.lowest:LowestBot"
[bots.heuristic]
module = "clients.bots.heuristic:HeuristicBot"
[bots.low-2]
module = "clients.bots.lowest:LowestBot"
"""

SINGLE = [
    "--seat", "r=clients.bots.random:RandomBot", "--seat", "l=clients.bots.lowest:LowestBot",
    "--seat", "h=clients.bots.heuristic:HeuristicBot", "--seat", "l2=clients.bots.lowest:LowestBot",
]  # fmt: skip


def make_plain_db(folder: Path) -> dict[str, Any]:
    """The database (``db``), the id of its single match (``single``), of its match with a name of
    markup (``marked``) and the tournament's match ids (``tournament``)."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "plain.db"
    bots = folder / "bots.toml"
    bots.write_text(BOTS)
    ok("tournament", "run", "--bots", str(bots), "--deals", "1", "--rules", RULES, "--seed", "5", "--db", str(db))
    out = ok("match", *SINGLE, "--rules", RULES, "--seed", "7", "--db", str(db))
    single = next(w for line in out.splitlines() if "hearts replay" in line for w in line.split() if len(w) == 32)
    with Store(db) as store:
        tournament = list(store.match_ids(tournament_id=1))
        obj = match_to_json(store.load_match(single))
        obj["match_id"] = "f" * 32
        obj["seats"][1]["bot"] = IMG
        obj["seats"][1]["address"] = ADDRESS
        obj["faults"].append(
            {"hand": 0, "trick": 0, "seat": 1, "kind": FaultKind.ERROR_STATUS.value,
             "detail": f"at ipv4:{ADDRESS}: {IMG}", "sent": "PlayCard", "received": SCRIPT,
             "action": "played the lowest legal card"}
        )  # fmt: skip
        obj["started_at"] = obj["finished_at"] = "2001-01-01T00:00:00+00:00"  # the oldest match
        store.save_match(match_from_json(obj))
    return {"db": db, "single": single, "marked": "f" * 32, "tournament": tournament}


def digest(path: Path) -> str:
    """The file's bytes, hashed: reading it must leave them as they were."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected_hand(record: dict[str, Any], hand: int, seat: int, played: int) -> set[str]:
    """What ``seat`` holds in ``hand`` after the hand's first ``played`` cards (after the pass)."""
    plays = [p for p in record["plays"] if p["hand"] == hand]
    return {p["card"] for p in plays if p["seat"] == seat} - {p["card"] for p in plays[:played]}
