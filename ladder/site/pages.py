"""What each page shows, as a template and its context, for a viewer: the server's routes
(ladder/site/routes.py) and the static site (ladder/site/static_site.py) render the same.

Every page's data comes through the JSON API's own handlers (ladder/arena/app.py), called with the
viewer's account: a page shows no more than the API would show that viewer, anonymity included.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request

from ladder.arena import app as api
from ladder.arena.accounts import Account
from ladder.arena.app import ApiError, ArenaState, View
from ladder.site.render import online_elo, points_svg, rating_svg, replay_steps, seat_names
from referee.report import replay_hands

__all__ = ["VISITOR", "Page", "bot_page", "leaderboard_page", "match_page", "matches_page"]

VISITOR = Account(id=0, name="", role="visitor", alias="")  # someone not signed in: sees what all see

Page = tuple[str, dict[str, Any]]
SORTABLE = ("rank", "bot", "elo", "games", "score_pct", "win_pct", "points_per_hand", "faults")


async def call(
    handler: Callable[[Request, ArenaState, Account], Awaitable[Any]],
    state: ArenaState,
    viewer: Account,
    query: dict[str, str] | None = None,
    **path_params: Any,
) -> Any:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [],
        "query_string": urlencode(query or {}).encode(),
        "path_params": path_params,
    }
    return await handler(Request(scope), state, viewer)


def _sort(rows: list[dict[str, Any]], key: str | None) -> list[dict[str, Any]]:
    if key not in SORTABLE or key in (None, "rank"):
        return rows
    assert key is not None
    desc = key not in ("bot", "faults")

    def k(r: dict[str, Any]) -> Any:
        v = r.get(key)
        return (v is None, v if not desc or isinstance(v, str) else -(v or 0))

    return sorted(rows, key=k)


async def leaderboard_page(state: ArenaState, viewer: Account, query: dict[str, str]) -> Page:
    q = {k: v for k, v in query.items() if k in ("rules", "versions")}
    boards = [await call(api.leaderboard, state, viewer, q)]
    final = state.store.get_meta("final_tournament")
    if final is not None:
        boards.append(await call(api.leaderboard, state, viewer, {**q, "board": "final"}))
    for b in boards:
        b["rows"] = _sort(b["rows"], query.get("sort"))
    status = await call(api.status, state, viewer)
    rulesets = [state.cfg.rules] + [
        k.split(":", 1)[1] for k in state.store.meta_keys("ladder_tournament:") if k.split(":", 1)[1] != state.cfg.rules
    ]
    return "leaderboard.html", {
        "boards": boards,
        "status": status,
        "sort": query.get("sort", "rank"),
        "rules_q": query.get("rules", ""),
        "rulesets": rulesets,
        "title": "Leaderboard",
    }


async def matches_page(state: ArenaState, viewer: Account, query: dict[str, str]) -> Page:
    q = {"limit": str(api.MAX_PAGE), **({"after": query["after"]} if query.get("after") else {})}
    result = await call(api.matches, state, viewer, q)
    page = result["matches"]
    bot = query.get("bot") or None
    tournament = query.get("tournament") or None
    if bot is not None:
        page = [m for m in page if any(s["bot"] == bot or s["bot"].rsplit(".v", 1)[0] == bot for s in m["seats"])]
    if tournament is not None:
        page = [m for m in page if str(m["tournament"]) == tournament]
    view = View(state, viewer)
    bots = sorted(view.bot_name(b) for b in view.bots.values())
    tournaments = sorted({str(m["tournament"]) for m in page} | ({tournament} if tournament else set()))
    return "matches.html", {
        "matches": page,
        "bot": bot,
        "tournament": tournament,
        "bots": bots,
        "tournaments": tournaments,
        "next": result["next"],
        "title": "Matches",
    }


async def match_page(state: ArenaState, viewer: Account, match_id: str, query: dict[str, str]) -> Page:
    data = await call(api.match, state, viewer, id=match_id)
    record = await asyncio.to_thread(lambda: state.store.ladder.load_match(match_id))
    steps = replay_steps(data, list(replay_hands(record)))
    try:
        step = max(0, min(len(steps) - 1, int(query.get("step", "0"))))
    except ValueError:
        step = 0
    try:
        seat_view = int(query["view"]) if query.get("view", "") != "" else None
    except ValueError:
        seat_view = None
    names = seat_names(data)
    hands = data["hands"]
    return "match.html", {
        "m": data,
        "names": names,
        "steps": steps,
        "step": step,
        "s": steps[step] if steps else None,
        "seat_view": seat_view,
        "hands": hands,
        "title": f"Match {match_id}",
    }


def bot_of(ladder_name: str) -> str:
    return ladder_name.rsplit(".v", 1)[0]


async def bot_page(state: ArenaState, viewer: Account, name: str) -> Page:
    b = await call(api.bot, state, viewer, name=name)
    view = View(state, viewer)
    board = await call(api.leaderboard, state, viewer, {"versions": "all"})
    rows = [r for r in board["rows"] if r["bot"] == b["name"]]
    all_matches = (await call(api.matches, state, viewer, {"limit": str(api.MAX_PAGE)}))["matches"]
    mine = [m for m in all_matches if any(bot_of(s["bot"]) == b["name"] for s in m["seats"])]
    # The history in the order played (oldest first), every seat of every match on the page whose
    # result is shown (a withheld match has none yet).
    ordered = [
        (m["id"], [(s["bot"], s["place"]) for s in m["seats"]]) for m in reversed(all_matches) if not m["withheld"]
    ]
    history: list[tuple[int, float]] = []
    for ln in {s["bot"] for m in mine for s in m["seats"] if bot_of(s["bot"]) == b["name"]}:
        history += online_elo(ordered, ln)
    history.sort()
    faults: Counter[str] = Counter()
    points: list[int] = []
    withheld = set()
    for m in mine[:40]:  # the newest 40: the record of each is read
        try:
            data = await call(api.match, state, viewer, id=m["id"])
        except ApiError as err:
            if err.status == 409:  # its deal is still being played in other seats: shown once it is not
                withheld.add(m["id"])
                continue
            raise
        seats = [s["seat"] for s in data["seats"] if bot_of(s["bot"]) == b["name"]]
        for f in data["faults"]:
            if f["seat"] in seats:
                faults[f["kind"]] += 1
        for h in data["hands"]:
            points += [h["points_taken"][s] for s in seats if s < len(h["points_taken"])]
    del view
    return "bot.html", {
        "b": b,
        "rows": rows,
        "recent": [m for m in mine if m["id"] not in withheld and not m["withheld"]][:20],
        "rating_svg": rating_svg(history),
        "points_svg": points_svg(points),
        "faults": sorted(faults.items()),
        "title": f"Bot {b['name']}",
    }


async def live_data(state: ArenaState, viewer: Account) -> dict[str, Any]:
    live = await call(api.live, state, viewer)
    newest = (await call(api.matches, state, viewer, {"limit": "10"}))["matches"]
    status = await call(api.status, state, viewer)
    return {"live": live["live"], "newest": newest, "matches": status["matches"], "paused": status["paused"]}


async def live_page(state: ArenaState, viewer: Account) -> Page:
    return "live.html", {**(await live_data(state, viewer)), "title": "Live"}


def run(coro: Awaitable[Page]) -> Page:
    return asyncio.run(coro)  # type: ignore[arg-type]


__all__ += ["ApiError", "call", "live_data", "live_page", "run"]
