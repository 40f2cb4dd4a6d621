"""What each page shows, as a template and its context, for a viewer: the server's routes
(ladder/site/routes.py) and the static site (ladder/site/static_site.py) render the same.

Every page's data comes from the arena's views (ladder/arena/views.py), the functions the JSON API
answers from, called with the viewer's account: a page shows no more than the API would show that
viewer, anonymity included. The same pages draw a plain tournament database (``LocalState``: the
views read it by its own rules), with its tournaments' pages besides.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ladder.arena import asking, views
from ladder.arena.accounts import Account
from ladder.arena.errors import Forbidden, NotFound, NotNow
from ladder.arena.state import ArenaState
from ladder.arena.views import VISITOR, State
from ladder.site.render import points_svg, rating_svg, replay_steps, seat_names

__all__ = [
    "VISITOR",
    "Page",
    "bot_page",
    "leaderboard_page",
    "live_data",
    "live_page",
    "match_data",
    "match_page",
    "matches_page",
    "tournament_page",
    "tournaments_page",
]

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


async def leaderboard_page(state: State, viewer: Account, query: dict[str, str]) -> Page:
    rules, every = query.get("rules") or None, query.get("versions") == "all"
    boards = [await views.leaderboard(state, viewer, rules=rules, all_versions=every)]
    final = None
    if views.final_tournament(state) is not None:
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


def _tournament_q(query: dict[str, str]) -> int | None:
    try:
        return int(query.get("tournament") or "")
    except ValueError:
        return None


async def matches_page(state: State, viewer: Account, query: dict[str, str]) -> Page:
    bot = query.get("bot") or None
    tournament = query.get("tournament") or None
    after = query.get("after") or None
    result = await views.matches(
        state, viewer, limit=views.MAX_PAGE, after=after, tournament=_tournament_q(query), bot=bot
    )
    page = result["matches"]
    if tournament is not None:
        page = [m for m in page if str(m["tournament"]) == tournament]
    listed = {str(m["tournament"]) for m in page if m["tournament"] is not None}  # a single match has none
    tournaments = sorted(listed | ({tournament} if tournament else set()))
    return "matches.html", {
        "matches": page,
        "bot": bot,
        "tournament": tournament,
        "bots": sorted(await views.bot_names(state, viewer)),
        "tournaments": tournaments,
        "next": result["next"],
        "title": "Matches",
    }


async def match_data(state: State, viewer: Account, match_id: str) -> dict[str, Any]:
    """A match as ``viewer`` may see it (the export format), its seats' names and its replay's steps
    (``replay_steps``, from the engine's replay): what its page draws and its JSON is."""
    shown = await views.replay(state, viewer, match_id)
    return {"match": shown.match, "names": seat_names(shown.match), "steps": replay_steps(shown.match, shown.hands)}


def _replay_step_of(d: asking.AskableStep, steps: list[dict[str, Any]]) -> int:
    """The replay's step that shows decision ``d``: a play's card played, a pass's or a charge's
    cards, a moon choice's score; any other decision its hand's deal."""
    if d.play is not None:
        plays = [i for i, s in enumerate(steps) if s["kind"] == "play"]
        return plays[d.play] if d.play < len(plays) else len(steps) - 1
    kind = {"pass": "pass", "charge": "charge", "moon": "score"}.get(d.what, "deal")
    hand = [i for i, s in enumerate(steps) if s["hand"] == d.hand + 1]
    found = [i for i in hand if steps[i]["kind"] == kind]
    return (found or hand or [0])[0]


async def ask_panel(
    state: State, viewer: Account, match_id: str, steps: list[dict[str, Any]], at: int, chosen: int | None = None
) -> dict[str, Any] | None:
    """The match page's "ask your bot again" panel for a participant whose bot sat in the match
    (``ladder.arena.asking``): their seats' decisions, each with the replay step that shows it, the
    one at the replay's step ``at`` (or ``chosen``) selected; None for anyone else."""
    if not isinstance(state, ArenaState) or viewer.id == 0:
        return None
    try:
        found = await asyncio.to_thread(asking.askable, state, viewer, match_id)
    except (Forbidden, NotNow, NotFound):
        return None
    options = [{**d.to_dict(), "replay": _replay_step_of(d, steps)} for d in found.steps]
    if not options:
        return None
    if chosen is None:
        chosen = next((o["step"] for o in options if o["replay"] >= at), options[-1]["step"])
    versions = [{"bot": v.bot, "number": v.number} for vs in found.versions.values() for v in vs]
    return {"steps": options, "versions": versions, "chosen": chosen}


async def match_page(
    state: State,
    viewer: Account,
    match_id: str,
    query: dict[str, str],
    *,
    asked: dict[str, Any] | None = None,
    ask_error: str | None = None,
    chosen: int | None = None,
) -> Page:
    """A match's page; ``asked`` (the answer of ``asking.ask_again``) or ``ask_error`` after the
    viewer asked their bot a decision (``chosen``) again."""
    shown = await match_data(state, viewer, match_id)
    data, steps = shown["match"], shown["steps"]
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
        "names": shown["names"],
        "steps": steps,
        "step": step,
        "s": steps[step] if steps else None,
        "seat_view": seat_view,
        "hands": data["hands"],
        "title": f"Match {match_id}",
        "ask": await ask_panel(state, viewer, match_id, steps, step, chosen),
        "asked": asked,
        "ask_error": ask_error,
    }


async def bot_page(state: State, viewer: Account, name: str) -> Page:
    page = await views.bot_page(state, viewer, name)
    return "bot.html", {
        "b": page.bot,
        "rows": page.rows,
        "recent": page.recent,
        "rating_svg": rating_svg(page.history),
        "points_svg": points_svg(page.points),
        "faults": page.faults,
        "history_matches": page.history_matches,
        "title": f"Bot {page.bot['name']}",
    }


async def tournaments_page(state: State, viewer: Account) -> Page:
    """A plain database's tournaments (an arena's are its ladder and its final: its leaderboard)."""
    return "tournaments.html", {"tournaments": await views.tournaments(state, viewer), "title": "Tournaments"}


async def tournament_page(state: State, viewer: Account, tournament_id: str, query: dict[str, str]) -> Page:
    """One tournament of a plain database: its board (its own matches rated alone) and its matches."""
    try:
        tid = int(tournament_id)
    except ValueError:
        raise NotFound(f"no tournament {tournament_id!r}: a tournament's id is a number") from None
    row = await views.tournament(state, viewer, tid)
    board = await views.leaderboard(state, viewer, tournament=tid)
    board["rows"] = _sort(board["rows"], query.get("sort"))
    listed = await views.matches(state, viewer, limit=views.MAX_PAGE, tournament=tid)
    return "tournament.html", {
        "t": row,
        "boards": [board],
        "sort": query.get("sort", "rank"),
        "rules_q": "",
        "matches": listed["matches"],
        "more": listed["next"] is not None,
        "title": f"Tournament {tid}",
    }


async def live_data(state: ArenaState, viewer: Account) -> dict[str, Any]:
    return await views.live_board(state, viewer)


async def live_page(state: ArenaState, viewer: Account) -> Page:
    return "live.html", {**(await live_data(state, viewer)), "title": "Live"}
