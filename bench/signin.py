"""Benchmark sign-in under a flood of wrong tokens: what a valid sign-in and a page cost meanwhile.

Run from the project root: `python bench/signin.py` (a table) or `--json`. A real uvicorn serves
the arena's app (without its background worker) on a free port, and real HTTP from distinct
loopback addresses (127.0.0.2, 127.0.0.3, ...) sends `--addresses` x `--wrong` wrong tokens at once,
each address within its per-address limit, with the real scrypt. While they are checked, a valid
token never seen before signs in from one more address, and `/api/leaderboard` (with a token
verified before) and the site's leaderboard page `/` are asked for; each is timed, and so are the
same three on an idle arena.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # project root

import httpx
import uvicorn

from ladder.arena.accounts import add_user
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig
from ladder.arena.store import ArenaStore
from ladder.bots.launcher import free_port


def _client(url: str, address: str, token: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, headers=headers, transport=transport, timeout=600)


async def _timed(client: httpx.AsyncClient, path: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    r = await client.get(path)
    return r.status_code, 1000 * (time.perf_counter() - t0)


async def _measure(url: str, tokens: dict[str, str], addresses: int, wrong: int) -> dict[str, object]:
    seen = _client(url, "127.0.0.1", tokens["seen"])
    assert (await seen.get("/api/me")).status_code == 200  # verified now: the cache knows it
    visitor = _client(url, "127.0.0.1")
    await seen.get("/api/leaderboard")  # the first one fits the ratings
    idle = {
        "leaderboard_api": await _timed(seen, "/api/leaderboard"),
        "page": await _timed(visitor, "/"),
        "first_sign_in": await _timed(_client(url, "127.0.0.1", tokens["idle"]), "/api/me"),
    }
    uid = tokens["seen"].split(".")[0]  # a real user's id: each guess costs a scrypt
    flooders = [_client(url, f"127.0.0.{2 + a}") for a in range(addresses)]
    t0 = time.perf_counter()
    flood = [
        asyncio.create_task(c.get("/api/me", headers={"Authorization": f"Bearer {uid}.guess{a}-{i}"}))
        for a, c in enumerate(flooders)
        for i in range(wrong)
    ]
    await asyncio.sleep(0.3)  # every guess is in the server before the valid sign-in comes
    newcomer = _client(url, f"127.0.0.{2 + addresses}", tokens["first"])
    during = await asyncio.gather(_timed(newcomer, "/api/me"), _timed(seen, "/api/leaderboard"), _timed(visitor, "/"))
    answers = await asyncio.gather(*flood)
    drained_s = time.perf_counter() - t0
    for c in (seen, visitor, newcomer, *flooders):
        await c.aclose()
    codes: dict[int, int] = {}
    for r in answers:
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
    return {
        "wrong_tokens": addresses * wrong,
        "addresses": addresses,
        "idle_ms": {k: round(v[1], 1) for k, v in idle.items()},
        "during_ms": {
            "first_sign_in": round(during[0][1], 1),
            "leaderboard_api": round(during[1][1], 1),
            "page": round(during[2][1], 1),
        },
        "during_status": {"first_sign_in": during[0][0], "leaderboard_api": during[1][0], "page": during[2][0]},
        "wrong_answers": codes,
        "flood_drained_s": round(drained_s, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--addresses", type=int, default=6, help="addresses the wrong tokens come from")
    ap.add_argument("--wrong", type=int, default=10, help="wrong tokens from each address (10: within its limit)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = ArenaStore(folder / "arena.db")
        tokens = {who: add_user(store, who)[1] for who in ("seen", "idle", "first")}
        store.close()
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(
                build_app(folder, ArenaConfig(), background=False), host="127.0.0.1", port=port, log_level="warning"
            )
        )
        # Bound to 127.0.0.1, reached from other loopback addresses: uvicorn sees each as its own client.
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            result = asyncio.run(_measure(f"http://127.0.0.1:{port}", tokens, args.addresses, args.wrong))
        finally:
            server.should_exit = True
            thread.join(10)
    if args.json:
        print(json.dumps(result))
    else:
        idle, during = result["idle_ms"], result["during_ms"]
        assert isinstance(idle, dict) and isinstance(during, dict)
        print(f"sign-in under {result['wrong_tokens']} wrong tokens from {result['addresses']} addresses (real scrypt)")
        print(f"  {'':28} {'idle':>9} {'flooded':>9}")
        for key, label in (
            ("first_sign_in", "valid first sign-in"),
            ("leaderboard_api", "/api/leaderboard (verified)"),
            ("page", "page / (no sign-in)"),
        ):
            print(f"  {label:28} {idle[key]:7.1f}ms {during[key]:7.1f}ms")
        print(f"  wrong tokens answered {result['wrong_answers']} in {result['flood_drained_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
