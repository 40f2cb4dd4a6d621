"""What each page shows, as a template and its context, for a viewer: the server's routes
(ladder/site/routes.py) and the static site (ladder/site/static_site.py) render the same.

Every page's data comes from the arena's views (ladder/arena/views.py), the functions the JSON API
answers from, called with the viewer's account: a page shows no more than the API would show that
viewer, anonymity included.
"""

from __future__ import annotations

from typing import Any

from ladder.arena import views
from ladder.arena.accounts import Account
from ladder.arena.state import ArenaState
from ladder.arena.views import VISITOR
from ladder.site.render import points_svg, rating_svg, replay_steps, seat_names

__all__ = ["VISITOR", "Page", "bot_page", "leaderboard_page", "live_data", "live_page", "match_page", "matches_page"]

Page = tuple[str, dict[str, Any]]
SORTABLE = ("rank", "bot", "elo", "games", "score_pct", "win_pct", "points_per_hand", "faults")


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
    rules, every = query.get("rules"), query.get("versions") == "all"
    boards = [await views.leaderboard(state, viewer, rules=rules, all_versions=every)]
    final = None
    if state.store.get_meta("final_tournament") is not None:
        boards.append(await views.leaderboard(state, viewer, board="final", rules=rules, all_versions=every))
        final = await views.final(state, viewer)  # a Swiss's standings, a knockout's bracket: as /api/final
    for b in boards:
        b["rows"] = _sort(b["rows"], query.get("sort"))
    return "leaderboard.html", {
        "boards": boards,
        "final": final,
        "status": await views.status(state, viewer),
        "sort": query.get("sort", "rank"),
        "rules_q": query.get("rules", ""),
        "rulesets": views.rulesets(state),
        "title": "Leaderboard",
    }


async def matches_page(state: ArenaState, viewer: Account, query: dict[str, str]) -> Page:
    result = await views.matches(state, viewer, limit=views.MAX_PAGE, after=query.get("after") or None)
    page = result["matches"]
    bot = query.get("bot") or None
    tournament = query.get("tournament") or None
    if bot is not None:
        page = [m for m in page if any(s["bot"] == bot or s["bot"].rsplit(".v", 1)[0] == bot for s in m["seats"])]
    if tournament is not None:
        page = [m for m in page if str(m["tournament"]) == tournament]
    tournaments = sorted({str(m["tournament"]) for m in page} | ({tournament} if tournament else set()))
    return "matches.html", {
        "matches": page,
        "bot": bot,
        "tournament": tournament,
        "bots": sorted(await views.bot_names(state, viewer)),
        "tournaments": tournaments,
        "next": result["next"],
        "title": "Matches",
    }


async def match_page(state: ArenaState, viewer: Account, match_id: str, query: dict[str, str]) -> Page:
    shown = await views.replay(state, viewer, match_id)
    data = shown.match
    steps = replay_steps(data, shown.hands)
    try:
        step = max(0, min(len(steps) - 1, int(query.get("step", "0"))))
    except ValueError:
        step = 0
    try:
        seat_view = int(query["view"]) if query.get("view", "") != "" else None
    except ValueError:
        seat_view = None
    return "match.html", {
        "m": data,
        "names": seat_names(data),
        "steps": steps,
        "step": step,
        "s": steps[step] if steps else None,
        "seat_view": seat_view,
        "hands": data["hands"],
        "title": f"Match {match_id}",
    }


async def bot_page(state: ArenaState, viewer: Account, name: str) -> Page:
    page = await views.bot_page(state, viewer, name)
    return "bot.html", {
        "b": page.bot,
        "rows": page.rows,
        "recent": page.recent,
        "rating_svg": rating_svg(page.history),
        "points_svg": points_svg(page.points),
        "faults": page.faults,
        "title": f"Bot {page.bot['name']}",
    }


async def live_data(state: ArenaState, viewer: Account) -> dict[str, Any]:
    return await views.live_board(state, viewer)


async def live_page(state: ArenaState, viewer: Account) -> Page:
    return "live.html", {**(await live_data(state, viewer)), "title": "Live"}
