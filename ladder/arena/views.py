"""What a viewer may see of the arena, as plain data: the status, the leaderboard, the bots and their
versions, the matches, a match and its replay, a bot's page, the live matches. The API
(ladder/arena/app.py) answers these as JSON and the site (ladder/site) draws the same as pages, so
a page never shows more than the API shows the same viewer.

The viewer is an ``Account``: an organiser sees everything; a participant their own bots whole and
the others as everyone does; ``VISITOR`` (not signed in) what all see. Anonymity: while
``[classroom] anonymous`` holds and the organiser has not revealed the names, everyone but a bot's
owner (and the organisers) sees the bot's alias for its name and no owner, and a match shows another
participant's bot by alias with its fault details and address blanked. A match whose deal other
seatings still play shows no score or place (its record is withheld). A name this viewer sees no bot
by is answered alike whether it is free, hidden or an alias (``not_shown``), reading and submitting.
Everything a bot controls (its handshake name, its errors, its log) is data, never markup.

A plain tournament database (``LocalState``: the file ``hearts match`` and ``hearts tournament run``
write, without an arena's tables) is read by the same functions, by its own rules
(ladder/arena/local.py): every bot by its name, no versions, no accounts, no final, nothing withheld;
its owner sees everything, a reader of what it publishes (``VISITOR``) no address a bot listened at.
Its boards are ``hearts ladder``'s: one ruleset of every match (or of one tournament).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ladder.arena.accounts import Account
from ladder.arena.errors import BadRequest, Forbidden, NotFound, NotNow
from ladder.arena.live import LiveMatch
from ladder.arena.local import OWNER, LocalState
from ladder.arena.state import ArenaState
from ladder.arena.store import IN_PIPELINE, BotRow, VersionRow, VersionStatus
from ladder.arena.worker import ladder_tournament, sandbox_mode
from ladder.export import match_to_json
from ladder.ratings.leaderboard import load_leaderboard, ruleset_text
from ladder.ratings.leaderboard import rulesets as ruleset_counts
from ladder.store import TournamentRow
from ladder.tournament.stages import STAGED_FORMATS, Bracket, Played, SwissState, bracket_of, played_rounds, swiss_of
from referee.report import ReplayedHand, replay_hands

__all__ = [
    "MAX_PAGE",
    "OWNER",
    "VISITOR",
    "BotPage",
    "Replay",
    "State",
    "bot",
    "bot_names",
    "bot_page",
    "bots",
    "deadline_passed",
    "final",
    "final_tournament",
    "table_opponents",
    "leaderboard",
    "live",
    "live_board",
    "match",
    "matches",
    "me",
    "not_shown",
    "own_bots",
    "HISTORY_POINTS",
    "replay",
    "rulesets",
    "shown_bot",
    "shown_version",
    "status",
    "tournament",
    "tournaments",
    "users",
    "version",
    "version_log",
    "versions",
    "without_addresses",
]

VISITOR = Account(id=0, name="", role="visitor", alias="")
"""Someone not signed in: sees what all see."""

State = ArenaState | LocalState
"""What the views read: an arena, or a plain tournament database."""

MAX_PAGE = 200
# A board fitted longer ago than this, with matches come in since, is fitted again: for its reader
# while the arena is small, behind it once big (``Ratings``); never while another fit is being made.
STALE_S = 1.0
HIDDEN = "(address hidden)"


class _Sight:
    """What ``viewer`` may see of each bot (its name or its alias)."""

    def __init__(self, state: ArenaState, viewer: Account) -> None:
        self.state = state
        self.viewer = viewer
        store = state.store
        self.bots = {b.id: b for b in store.bots()}
        self.versions = {v.ladder_name: v for v in store.versions()}
        self.users = {u.id: u.name for u in store.users()}
        self.hidden = state.cfg.anonymous and store.get_meta("revealed") != "1" and not viewer.organiser

    def owns(self, bot: BotRow) -> bool:
        return bot.owner_id == self.viewer.id or self.viewer.organiser

    def masked(self, bot: BotRow) -> bool:
        return self.hidden and not bot.house and bot.owner_id != self.viewer.id

    def bot_name(self, bot: BotRow) -> str:
        return bot.alias if self.masked(bot) else bot.name

    def versions_of(self, bot: BotRow) -> list[VersionRow]:
        """The bot's versions this viewer may see."""
        return [v for v in self.versions.values() if v.bot_id == bot.id]

    def ladder_name(self, name: str) -> str:
        """A ladder name (``BOT.vN``) as this viewer may see it."""
        v = self.versions.get(name)
        if v is None:
            return name
        bot = self.bots[v.bot_id]
        return f"{self.bot_name(bot)}.v{v.number}" if self.masked(bot) else name

    def mine(self, name: str) -> bool:
        """Whether the ladder name ``name`` is a version of one of the viewer's own bots."""
        v = self.versions.get(name)
        return v is not None and self.bots[v.bot_id].owner_id == self.viewer.id

    def bot_dict(self, bot: BotRow) -> dict[str, Any]:
        vs = self.versions_of(bot)
        valid = [v for v in vs if v.status is VersionStatus.VALID]
        return {
            "name": self.bot_name(bot),
            "owner": None if self.masked(bot) else bot.owner,
            "house": bot.house,
            "mine": bot.owner_id == self.viewer.id,
            "versions": len(vs),
            "playing_version": max((v.number for v in valid), default=None),
            "created_at": bot.created_at,
        }

    def shown_bot(self, name: str) -> BotRow | None:
        """The bot this viewer sees by ``name`` (an anonymous board's rival by alias alone), or None."""
        for b in self.bots.values():
            if self.bot_name(b) == name:
                return b
        return None

    def find_bot(self, name: str) -> BotRow:
        b = self.shown_bot(name)
        if b is None:
            raise not_shown(name)
        return b

    def find_version(self, bot: BotRow, name: str, number: int) -> VersionRow:
        v = next((v for v in self.versions.values() if v.bot_id == bot.id and v.number == number), None)
        if v is None:
            raise NotFound(f"bot {name!r} has no version {number}")
        return v

    def version_dict(self, v: VersionRow) -> dict[str, Any]:
        bot = self.bots[v.bot_id]
        d = v.to_dict()
        d["bot"] = self.bot_name(bot)
        d["ladder_name"] = self.ladder_name(v.ladder_name)
        d["submitted_by"] = None if self.masked(bot) else self.users.get(v.submitted_by)
        if not self.owns(bot):
            # The reports hold the bot's own text (handshake name, errors): its owner's alone.
            for key in ("build_report", "validation_report", "command", "build", "address", "content_hash"):
                d[key] = None
        return d


def not_shown(name: str) -> NotFound:
    """The one answer to a name this viewer sees no bot by, reading it or submitting to it alike:
    whether it is free, another participant's hidden name or someone's alias is not told."""
    return NotFound(
        f"no bot {name!r} that you can see in this arena (a name that is taken but not shown to you "
        "cannot be submitted to either: choose another)"
    )


def table_opponents(state: ArenaState, viewer: Account) -> list[tuple[dict[str, Any], VersionRow]]:
    """The bots ``viewer`` may seat at a table of their own, each with what the viewer may see of it:
    the house bots in arena.toml's order, then every other bot with a valid version (the viewer's own
    among them), each by its newest valid version and by the name the viewer sees (an alias while an
    anonymous arena hides its participants' names)."""
    sight = _Sight(state, viewer)
    order = {h.name: i for i, h in enumerate(state.cfg.house)}
    out = []
    for v in state.store.newest_valid():
        bot = sight.bots.get(v.bot_id)
        if bot is None:
            continue
        out.append(({"name": sight.bot_name(bot), "house": bot.house, "mine": bot.owner_id == viewer.id}, v))
    out.sort(key=lambda o: (not o[0]["house"], order.get(o[1].bot, 0), o[0]["name"]))
    return out


def shown_bot(state: ArenaState, viewer: Account, name: str) -> BotRow | None:
    """The bot ``viewer`` sees by ``name``, or None (``not_shown`` is the answer then)."""
    return _Sight(state, viewer).shown_bot(name)


def shown_version(state: ArenaState, viewer: Account, v: VersionRow) -> dict[str, Any]:
    """Version ``v`` as ``viewer`` may see it (its reports, command and address are its owner's)."""
    return _Sight(state, viewer).version_dict(v)


def _organiser_only(viewer: Account) -> None:
    if not viewer.organiser:
        raise Forbidden("this needs an organiser's token")


def deadline_passed(state: ArenaState) -> bool:
    """Whether arena.toml's deadline has passed (submissions are closed to participants then)."""
    deadline = state.cfg.deadline
    return deadline is not None and dt.datetime.now(dt.UTC) >= deadline


# -- the arena ---------------------------------------------------------------------------------------


async def status(state: State, viewer: Account) -> dict[str, Any]:
    """The arena: rules, paused, matches played and pending, the queue, live matches, the deadline, you.
    A plain database: its latest ruleset, its finished matches and bots (no queue, nothing live)."""
    if isinstance(state, LocalState):
        return await asyncio.to_thread(_local_status, state, viewer)
    store = state.store
    tid = ladder_tournament(store, state.cfg)
    info = store.ladder.tournaments.get(tid)
    final = store.get_meta("final_tournament")
    worker = state.worker
    return {
        "name": state.cfg.name,
        "rules": state.cfg.rules,
        "paused": store.get_meta("paused") == "1",
        "matches": info.done if info is not None else 0,
        "pending": (info.total - info.done) if info is not None else 0,
        "bots": len(store.bots()),
        "queue": len(store.versions_in(IN_PIPELINE)),
        "live": len(worker.live) if worker is not None else 0,
        "deadline": state.cfg.deadline.isoformat() if state.cfg.deadline is not None else None,
        "submissions_open": not deadline_passed(state),
        "anonymous": state.cfg.anonymous and store.get_meta("revealed") != "1",
        "final_tournament": int(final) if final is not None else None,
        "sandbox": sandbox_mode()[0].label,
        "sandbox_warning": sandbox_mode()[1],
        "you": {"name": viewer.name, "role": viewer.role},
        # The organiser's alone: they name bots, which an anonymous board hides.
        "events": (worker.events[-20:] if worker is not None else []) if viewer.organiser else None,
    }


def _local_status(state: LocalState, viewer: Account) -> dict[str, Any]:
    store = state.store
    latest = store.ladder.latest_ruleset()
    return {
        "name": state.name,
        "rules": ruleset_text(latest) if latest is not None else None,
        "paused": False,
        "matches": sum(n for _, n in store.ladder.ruleset_counts()),
        "pending": 0,
        "bots": len(store.bots()),
        "queue": 0,
        "live": 0,
        "deadline": None,
        "submissions_open": False,
        "anonymous": False,
        "final_tournament": None,
        "sandbox": None,
        "sandbox_warning": None,
        "you": {"name": viewer.name, "role": viewer.role},
        "events": None,
    }


def me(viewer: Account) -> dict[str, Any]:
    """The viewer's name, role and alias."""
    return {"name": viewer.name, "role": viewer.role, "alias": viewer.alias}


async def users(state: ArenaState, viewer: Account) -> dict[str, Any]:
    """Every user with role and alias (the organiser's)."""
    _organiser_only(viewer)
    return {"users": [{"name": u.name, "role": u.role, "alias": u.alias} for u in state.store.users()]}


def rulesets(state: State) -> list[str]:
    """The rulesets the arena has a ladder of: arena.toml's first, then any earlier ones. A plain
    database's: the latest tournament's first (its default board), then the others, most matches first."""
    if isinstance(state, LocalState):
        latest = state.store.ladder.latest_ruleset()
        texts = [r.rules for r in ruleset_counts(state.store) if r.rules is not None]
        first = ruleset_text(latest) if latest is not None else None
        return ([first] if first is not None else []) + [r for r in texts if r != first]
    current = state.cfg.rules
    others = [k.split(":", 1)[1] for k in state.store.meta_keys("ladder_tournament:")]
    return [current] + [r for r in others if r != current]


# -- the leaderboard ---------------------------------------------------------------------------------


async def leaderboard(
    state: State,
    viewer: Account,
    *,
    board: str = "ladder",
    rules: str | None = None,
    all_versions: bool = False,
    tournament: int | None = None,
) -> dict[str, Any]:
    """The ladder's board (``rules``: of an earlier ruleset's ladder) or the final's, as the fit of
    ``ladder.ratings`` gives it, its names as ``viewer`` sees them; the ladder lists each bot's newest
    version unless ``all_versions``. A plain database's board is ``hearts ladder``'s: ``rules`` (by
    default the latest tournament's) over every match, or over one ``tournament``'s."""
    if isinstance(state, LocalState):
        if board != "ladder":
            raise NotFound(f"{state.name} is no arena: it has a ladder and tournaments, no final")
        return await _local_leaderboard(state, rules=rules, tournament=tournament)
    if tournament is not None:
        raise BadRequest("an arena's boards are its ladder's and its final's")
    store = state.store
    if rules is None:
        rules = state.cfg.rules
    if board == "final":
        final = store.get_meta("final_tournament")
        if final is None:
            raise NotFound("no final tournament yet (the organiser starts it, or the deadline does)")
        tid = int(final)
    elif board == "ladder":
        if rules != state.cfg.rules and store.get_meta(f"ladder_tournament:{rules}") is None:
            raise NotFound(f"no ladder of ruleset {rules!r} in this arena (it plays {state.cfg.rules!r})")
        tid = int(store.get_meta(f"ladder_tournament:{rules}") or ladder_tournament(store, state.cfg))
    else:
        raise BadRequest(f"board {board!r}: use ladder or final")
    fitted = await asyncio.to_thread(lambda: state.ratings.get(state.store, tid, rules, max_age=STALE_S))
    sight = _Sight(state, viewer)
    newest = {v.ladder_name for v in store.newest_valid()}
    rows = []
    for r in fitted.rows:
        v = sight.versions.get(r.bot)
        if board == "ladder" and not all_versions and v is not None and r.bot not in newest:
            continue  # an older version: all_versions lists it
        bot = sight.bots[v.bot_id] if v is not None else None
        row = {k: (None if isinstance(x, float) and x != x else x) for k, x in asdict(r).items()}
        row["bot"] = sight.bot_name(bot) if bot is not None else r.bot
        row["version"] = v.number if v is not None else None
        row["ladder_name"] = sight.ladder_name(r.bot)
        row["owner"] = None if bot is None or sight.masked(bot) else bot.owner
        row["mine"] = bot is not None and bot.owner_id == viewer.id
        rows.append(row)
    for i, row in enumerate(rows, start=1):
        row["rank"] = i
    return {"board": board, "tournament": tid, "rules": fitted.rules or rules, "matches": fitted.matches, "rows": rows}


async def _local_leaderboard(state: LocalState, *, rules: str | None, tournament: int | None) -> dict[str, Any]:
    def fit() -> Any:
        store = state.store
        if tournament is not None and store.tournaments.get(tournament) is None:
            raise NotFound(f"no tournament {tournament} in {state.name}")
        known = {r.rules for r in ruleset_counts(store, tournament_id=tournament)}
        if rules is not None and rules not in known:
            where = f"tournament {tournament}" if tournament is not None else state.name
            raise NotFound(f"no finished match of ruleset {rules!r} in {where}")
        return load_leaderboard(store, tournament_id=tournament, rules=rules)

    fitted = await asyncio.to_thread(fit)
    rows = []
    for r in fitted.rows:
        row = {k: (None if isinstance(x, float) and x != x else x) for k, x in asdict(r).items()}
        row.update(version=None, ladder_name=r.bot, owner=None, mine=False)
        rows.append(row)
    return {"board": "ladder", "tournament": tournament, "rules": fitted.rules or rules, "matches": fitted.matches,
            "rows": rows}  # fmt: skip


# -- the final tournament's standings -----------------------------------------------------------------


def final_tournament(state: State) -> int | None:
    """The final tournament's id, once the organiser (or the deadline) started it; a plain database
    has none."""
    if isinstance(state, LocalState):
        return None
    final = state.store.get_meta("final_tournament")
    return int(final) if final is not None else None


async def final(state: State, viewer: Account) -> dict[str, Any]:
    """The final tournament as it stands, for ``GET /api/final`` and the site's final board alike: its
    format and progress, and a Swiss's standings (``swiss``) or a knockout's bracket (``knockout``)
    drawn from its recorded results by ``ladder.tournament.stages``, the functions that draw its
    rounds (a round robin's standings are its board: ``leaderboard(board="final")``). Names as
    ``viewer`` sees them (aliases on an anonymous board). Only what is settled is shown, as a
    withheld match shows nothing: a Swiss's standings over its complete rounds, a knockout table's
    points once every seating of its own deals is recorded."""
    if isinstance(state, LocalState):
        raise NotFound(f"{state.name} is no arena: it has tournaments, no final")
    tid = final_tournament(state)
    if tid is None:
        raise NotFound("no final tournament yet (the organiser starts it, or the deadline does)")
    row, played = await asyncio.to_thread(_final_read, state, tid)
    sight = _Sight(state, viewer)
    out: dict[str, Any] = {
        "tournament": tid,
        "format": row.format,
        "rules": row.rules,
        "deals": row.deals,
        "status": row.status,
        "matches": row.done,
        "scheduled": row.total,
        "seeding": None,
        "swiss": None,
        "knockout": None,
    }
    if played is None:
        return out
    out["seeding"] = [sight.ladder_name(b) for b in played.seeded]
    if row.format == "swiss":
        out["swiss"] = _swiss_view(swiss_of(played), sight)
    else:
        out["knockout"] = _knockout_view(played, bracket_of(played), sight)
    return out


def _final_read(state: ArenaState, tid: int) -> tuple[TournamentRow, Played | None]:
    """The final's row, and what a Swiss or a knockout has scheduled and recorded (in this thread's
    connection)."""
    ladder = state.store.ladder
    row = ladder.tournaments.get(tid)
    if row is None:
        raise NotFound(f"no tournament {tid} in this arena")
    return row, played_rounds(ladder, tid) if row.format in STAGED_FORMATS else None


def _swiss_view(st: SwissState, sight: _Sight) -> dict[str, Any]:
    name = sight.ladder_name
    return {
        "rounds": st.rounds,
        "rounds_played": st.rounds_done,
        # A round is drawn once the one before is recorded: a drawn round not complete is in play.
        "round_under_way": st.rounds_done + 1 if len(st.tables) > st.rounds_done else None,
        "standings": [
            {
                "rank": i,
                "bot": name(s.bot),
                "mine": sight.mine(s.bot),
                "points": s.score,
                "margin": s.margin,
                "rounds_played": s.tables + s.byes,
                "tables": s.tables,
                "byes": s.byes,
                "seed": s.seed,
            }
            for i, s in enumerate(st.standings, start=1)
        ],
        "drawn": [
            {
                "round": r + 1,
                "complete": r < st.rounds_done,
                "tables": [[name(b) for b in t] for t in tables],
                "byes": [name(b) for b in st.byes[r]],
            }
            for r, tables in enumerate(st.tables)
        ],
    }


def _knockout_view(p: Played, b: Bracket, sight: _Sight) -> dict[str, Any]:
    name = sight.ladder_name
    rounds = []
    for br in b.rounds:
        seed_of = {bot: i for i, bot in enumerate(br.field)}
        tables = []
        for t, seats in enumerate(br.tables):
            # The table's points are shown once its own deals are all recorded (sudden death apart).
            own = [rec for m, rec in p.schedule if m.round == br.round and m.table == t and m.deal < p.deals]
            result = br.results.get(t) if own and all(own) else None
            decided = t in br.orders
            if decided:
                order = br.orders[t]
            elif result is not None:  # tied across the cut: its sudden-death deal is played
                order = sorted(result.bots, key=lambda x: (result.key(x), seed_of[x]))
            else:
                order = list(seats)
            rows = []
            for i, bot in enumerate(order):
                outcome = None
                if decided:
                    outcome = ("winner" if i == 0 else None) if br.final else ("on" if bot in br.going_on else "out")
                rows.append(
                    {
                        "bot": name(bot),
                        "mine": sight.mine(bot),
                        "place": i + 1 if decided else result.place(bot) if result is not None else None,
                        "points": result.points[bot] if result is not None else None,
                        "forfeits": result.forfeits[bot] if result is not None else None,
                        "outcome": outcome,
                    }
                )
            where = "decided" if decided else "sudden death" if result is not None else "playing"
            tables.append(
                {
                    "table": t + 1,
                    "state": where,
                    "sudden_deaths": br.sudden_deaths.get(t, 0),
                    "rows": rows,
                }
            )
        decided_round = br.decided and not br.final
        rounds.append(
            {
                "round": br.round + 1,
                "final": br.final,
                "field": [name(x) for x in br.field],
                "byes": [name(x) for x in br.byes],
                "advance": br.advance,
                "decided": br.decided,
                "going_on": [name(x) for x in br.going_on] if decided_round else [],
                "out": [name(x) for x in br.field if x not in br.going_on] if decided_round else [],
                "tables": tables,
            }
        )
    last = b.rounds[-1] if b.rounds else None
    winner = b.winner
    return {
        "advance": p.advance,
        "round_under_way": last.round + 1 if last is not None and not last.decided else None,
        "winner": name(winner) if winner is not None else None,
        "placings": [name(x) for x in b.placings()] if winner is not None else [],
        "rounds": rounds,
    }


# -- a plain database's tournaments -------------------------------------------------------------------


def _tournament_dict(row: TournamentRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "format": row.format,
        "rules": ruleset_text(row.rules) or row.rules,
        "deals": row.deals,
        "rounds": row.rounds,
        "status": row.status,
        "matches": row.done,
        "scheduled": row.total,
        "created_at": row.created_at,
        "finished_at": row.finished_at,
    }


async def tournaments(state: State, viewer: Account) -> list[dict[str, Any]]:
    """A plain database's tournaments, newest first: format, ruleset, deals, status, matches
    recorded of those scheduled (``hearts tournament list``'s). An arena's tournaments are its
    ladders and its final: its leaderboard shows them."""
    if not isinstance(state, LocalState):
        raise NotFound("an arena's tournaments are its ladder's and its final's: see the leaderboard")
    rows = await asyncio.to_thread(lambda: state.store.tournaments.all())
    return [_tournament_dict(r) for r in reversed(rows)]


async def tournament(state: State, viewer: Account, tournament_id: int) -> dict[str, Any]:
    """One tournament of a plain database (``tournaments``' row)."""
    if not isinstance(state, LocalState):
        raise NotFound("an arena's tournaments are its ladder's and its final's: see the leaderboard")
    row = await asyncio.to_thread(lambda: state.store.tournaments.get(tournament_id))
    if row is None:
        raise NotFound(f"no tournament {tournament_id} in {state.name}")
    return _tournament_dict(row)


# -- bots and versions -------------------------------------------------------------------------------


def _local_bot(row: dict[str, Any]) -> dict[str, Any]:
    """A plain database's bot: its name, its registration's description, no owner, no versions."""
    return {
        "name": row["name"],
        "owner": None,
        "house": False,
        "mine": False,
        "versions": None,
        "playing_version": None,
        "created_at": row["created_at"],
        "description": row["description"],
        "registered": row["registered"],
        "matches": row["matches"],
    }


async def bots(state: State, viewer: Account) -> dict[str, Any]:
    """Every bot, by the name ``viewer`` sees it by."""
    if isinstance(state, LocalState):
        return {"bots": [_local_bot(r) for r in await asyncio.to_thread(lambda: state.store.bot_rows())]}
    sight = _Sight(state, viewer)
    return {"bots": [sight.bot_dict(b) for b in sight.bots.values()]}


async def bot_names(state: State, viewer: Account) -> list[str]:
    """Every bot's name as ``viewer`` sees it, in the order the bots were made."""
    if isinstance(state, LocalState):
        return [b["name"] for b in (await bots(state, viewer))["bots"]]
    sight = _Sight(state, viewer)
    return [sight.bot_name(b) for b in sight.bots.values()]


async def bot(state: State, viewer: Account, name: str) -> dict[str, Any]:
    """One bot and its versions (their reports its owner's); a plain database's has none."""
    if isinstance(state, LocalState):
        found = next((b for b in (await bots(state, viewer))["bots"] if b["name"] == name), None)
        if found is None:
            raise NotFound(f"no bot {name!r} in {state.name}")
        return {**found, "version_list": []}
    sight = _Sight(state, viewer)
    b = sight.find_bot(name)
    vs = [sight.version_dict(v) for v in sight.versions_of(b)]
    return {**sight.bot_dict(b), "version_list": vs}


async def own_bots(state: ArenaState, viewer: Account) -> list[dict[str, Any]]:
    """The viewer's own bots, each with its versions and their reports."""
    return [await bot(state, viewer, b["name"]) for b in (await bots(state, viewer))["bots"] if b["mine"]]


async def versions(state: ArenaState, viewer: Account, name: str) -> dict[str, Any]:
    """A bot's versions (their reports its owner's)."""
    sight = _Sight(state, viewer)
    b = sight.find_bot(name)
    return {"versions": [sight.version_dict(v) for v in sight.versions_of(b)]}


async def version(state: ArenaState, viewer: Account, name: str, number: int) -> dict[str, Any]:
    """One version of a bot."""
    sight = _Sight(state, viewer)
    return sight.version_dict(sight.find_version(sight.find_bot(name), name, number))


async def version_log(state: ArenaState, viewer: Account, name: str, number: int) -> dict[str, Any]:
    """What a version printed while it was validated and played (its owner's)."""
    sight = _Sight(state, viewer)
    b = sight.find_bot(name)
    if not sight.owns(b):
        raise Forbidden("a bot's logs are its owner's")
    v = sight.find_version(b, b.name, number)
    text = ""
    for folder in (state.dir / "logs" / "validate", state.dir / "logs", state.dir / "logs" / "ask"):
        path = folder / f"{v.ladder_name}.log"
        if path.is_file():
            text += f"== {path.relative_to(state.dir)}\n" + path.read_text(errors="replace")[-64000:]
    return {"bot": b.name, "version": number, "log": text}


# -- matches -----------------------------------------------------------------------------------------


async def matches(
    state: State,
    viewer: Account,
    *,
    limit: int = 50,
    after: str | None = None,
    tournament: int | None = None,
    bot: str | None = None,
) -> dict[str, Any]:
    """Recorded matches of the ladder and the final (or of one ``tournament`` of them; of one ``bot``,
    by the name ``viewer`` sees it by, its every version), newest first, ``limit`` at most
    (``MAX_PAGE``) from before match ``after``; ``next`` is where the next page starts. A plain
    database's: every match (or one tournament's, one bot's), newest first by their start."""
    limit = min(limit, MAX_PAGE)
    if isinstance(state, LocalState):
        page = await asyncio.to_thread(
            lambda: state.store.recent_matches(
                tournament_id=tournament, after=after, limit=limit, bots=None if bot is None else [bot]
            )
        )
        for m in page:
            m["withheld"] = False  # the owner's own file: nobody plays its deals while it is read
        return {"matches": page, "next": page[-1]["id"] if len(page) == limit else None}
    store = state.store
    tids = [ladder_tournament(store, state.cfg)]
    if (final := store.get_meta("final_tournament")) is not None:
        tids.append(int(final))
    if tournament is not None:
        tids = [t for t in tids if t == tournament]
    names = None
    if bot is not None:  # a version as the viewer sees it (BOT.vN), or a bot: its every version
        sight = _Sight(state, viewer)
        shown = {sight.ladder_name(n): n for n in sight.versions}
        found = sight.shown_bot(bot)
        names = [shown[bot]] if bot in shown else [] if found is None else [
            v.ladder_name for v in sight.versions_of(found)
        ]  # fmt: skip
    page = store.match_page(tids, after=after, limit=limit, bots=names) if tids else []
    sight = _Sight(state, viewer)
    # A match whose deal other seatings still play shows no result (its record is withheld): their
    # scores and places would tell how the deal plays.
    withheld = set() if viewer.organiser else store.ladder.deals_in_play([m["id"] for m in page])
    for m in page:
        m["withheld"] = m["id"] in withheld
        for s in m["seats"]:
            s["bot"] = sight.ladder_name(s["bot"])
            if m["withheld"]:
                s["score"] = s["place"] = s["faults"] = s["forfeit"] = None
    return {"matches": page, "next": page[-1]["id"] if len(page) == limit else None}


@dataclass(frozen=True)
class Replay:
    """A match as a viewer may see it (the export format, docs/export.md) and the engine's replay of
    its plays (cards, tricks and who took them: no bot's text)."""

    match: dict[str, Any]
    hands: list[ReplayedHand]


async def match(state: State, viewer: Account, match_id: str) -> dict[str, Any]:
    """One match in the export format, as ``viewer`` may see it."""
    return (await _match(state, viewer, match_id, replayed=False)).match


async def replay(state: State, viewer: Account, match_id: str) -> Replay:
    """One match as ``viewer`` may see it, with the engine's replay of it."""
    return await _match(state, viewer, match_id, replayed=True)


def _load(state: State, match_id: str, replayed: bool) -> tuple[dict[str, Any], list[ReplayedHand]]:
    """A match in the export format and the engine's replay of it (``replayed``), in this thread's
    connection."""
    records = state.store.ladder if isinstance(state, ArenaState) else state.store
    record = records.load_match(match_id)
    return match_to_json(record), list(replay_hands(record)) if replayed else []


async def _local_match(state: LocalState, viewer: Account, match_id: str, *, replayed: bool) -> Replay:
    if not await asyncio.to_thread(lambda: state.store.has_match(match_id)):
        raise NotFound(f"no match {match_id!r} in {state.name}")
    data, hands = await asyncio.to_thread(_load, state, match_id, replayed)
    if viewer.role != OWNER.role:  # what is published: no address a bot listened at
        unseen = [s["address"] for s in data["seats"] if s["address"]]
        for s in data["seats"]:
            s["address"] = None
        for f in data["faults"]:
            for key in ("detail", "sent", "received"):
                f[key] = without_addresses(f[key], unseen)
    return Replay(data, hands)


async def _match(state: State, viewer: Account, match_id: str, *, replayed: bool) -> Replay:
    if isinstance(state, LocalState):
        return await _local_match(state, viewer, match_id, replayed=replayed)
    store = state.store
    if not store.ladder.has_match(match_id):
        raise NotFound(f"no match {match_id!r}")
    if not viewer.organiser and store.ladder.deal_in_play(match_id):
        # Its deal (every hand, and the seed) is still being played by other bots in other seats.
        raise NotNow(
            f"match {match_id}'s deal is still to be played in other seats (duplicate deals): "
            "its record is shown once every seating of it is recorded"
        )

    data, hands = await asyncio.to_thread(_load, state, match_id, replayed)
    sight = _Sight(state, viewer)
    hidden_seats = set()
    unseen: list[str] = []  # the addresses this viewer may not see: every bot's but their own
    for s in data["seats"]:
        v = sight.versions.get(s["bot"])
        bot = sight.bots[v.bot_id] if v is not None else None
        if bot is None or not sight.owns(bot):
            if s["address"]:
                unseen.append(s["address"])
            s["address"] = None  # a house bot's is where the organiser's bots listen
            if bot is None or not bot.house:
                hidden_seats.add(s["seat"])
        s["bot"] = sight.ladder_name(s["bot"])
    for f in data["faults"]:
        if f["seat"] in hidden_seats:  # another participant's fault details are theirs
            f["detail"] = f["sent"] = f["received"] = None
        else:  # a house bot's say why it failed, not where it listens
            for key in ("detail", "sent", "received"):
                f[key] = without_addresses(f[key], unseen)
    return Replay(data, hands)


def without_addresses(text: str | None, addresses: list[str]) -> str | None:
    """``text`` with each of ``addresses`` (and what gRPC makes of it: ``ipv4:HOST:PORT``, a unix
    socket's path, the port after any host) written as ``(address hidden)``."""
    if not text:
        return text
    for address in addresses:
        text = text.replace(address, HIDDEN)
        if address.startswith("unix:"):
            text = text.replace(address.removeprefix("unix:"), HIDDEN)
        else:
            port = address.rpartition(":")[2]
            text = re.sub(rf"[\w.%\[\]:-]*:{re.escape(port)}(?!\d)", HIDDEN, text)
    return text


def _live_plays(m: LiveMatch | None, viewer: Account) -> dict[str, Any]:
    """A match in play's plays and scored hands so far, as the record has them, unless its deal
    other seatings still play (an organiser sees them all the same)."""
    if m is None:  # not begun (or played elsewhere: a cluster's matches are not watched)
        return {"started": False, "withheld": False, "plays": [], "hands": []}
    if not (viewer.organiser or m.public):
        return {"started": True, "withheld": True, "plays": [], "hands": []}
    return {"started": True, "withheld": False, "plays": m.plays, "hands": m.hands}


async def live(state: ArenaState, viewer: Account) -> dict[str, Any]:
    """The matches in play that are not yet recorded (no seed: it deals every hand), each with its
    plays and scored hands so far when this viewer may see them (``withheld`` while its deal is still
    to be played in other seatings, as its record is): seats by number, names as the viewer sees them."""
    worker = state.worker
    sight = _Sight(state, viewer)
    playing = {m.id: m for m in state.hub.in_play()}
    seats = {mid: list(m["seats"]) for mid, m in list((worker.live if worker is not None else {}).items())}
    for mid, m in playing.items():  # the final's matches too, which the batch does not list
        seats.setdefault(mid, m.names)
    # Not begun here: waiting for a free table, or, on a cluster, played by its workers (not watched).
    waiting = "on the cluster" if state.cfg.cluster else "queued"
    items = [
        {
            "id": mid,
            "state": "playing" if mid in playing else waiting,
            "seats": [sight.ladder_name(s) for s in names],
            **_live_plays(playing.get(mid), viewer),
        }
        for mid, names in seats.items()
    ]
    items.sort(key=lambda m: m["state"] != "playing")  # stable: each group in the batch's order
    return {
        "live": items,
        "playing": sum(m["state"] == "playing" for m in items),
        "waiting": sum(m["state"] != "playing" for m in items),
        "note": "the matches of the batch not yet recorded: playing, or waiting for a table (queued) "
        "or played by a cluster's workers (on the cluster)",
    }


async def live_board(state: ArenaState, viewer: Account) -> dict[str, Any]:
    """The live page: the matches in play, the newest recorded, how many are, whether paused."""
    now = await live(state, viewer)
    newest = (await matches(state, viewer, limit=10))["matches"]
    shown = await status(state, viewer)
    return {"live": now["live"], "newest": newest, "matches": shown["matches"], "paused": shown["paused"]}


# -- a bot's page ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotPage:
    """A bot's page: the bot, its versions' rows of the board, its newest matches whose result is
    shown, and over every match of it whose result is shown: its running Elo, the hands by the points
    it took in them, and its faults by kind."""

    bot: dict[str, Any]
    rows: list[dict[str, Any]]
    recent: list[dict[str, Any]]
    history: list[tuple[int, float]]  # (its n-th match, its live Elo after it), at most HISTORY_POINTS
    points: dict[int, int]  # points taken in a hand -> hands
    faults: list[tuple[str, int]]
    history_matches: int = 0  # the matches the history covers (all of them, before thinning)


HISTORY_POINTS = 400
"""A bot page's rating history is drawn through at most this many of its matches, evenly spread."""


async def bot_page(state: State, viewer: Account, name: str) -> BotPage:
    """What a bot's page shows ``viewer``, from the same views as the rest (no more than they show): its
    tallies over its whole history, kept as matches are saved, less any match whose deal other
    seatings still play (its result is withheld from all but the organiser until they are played)."""
    b = await bot(state, viewer, name)
    board = await leaderboard(state, viewer, all_versions=True)
    rows = [r for r in board["rows"] if r["bot"] == b["name"]]
    mine = (await matches(state, viewer, limit=40, bot=b["name"]))["matches"]
    recent = [m for m in mine if not m["withheld"]][:20]
    if isinstance(state, LocalState):
        names, organiser = [name], True  # a plain database withholds nothing
    else:
        sight = _Sight(state, viewer)
        found = sight.find_bot(name)
        names = [v.ladder_name for v in sight.versions_of(found)]
        organiser = viewer.organiser

    def tallies() -> tuple[list[tuple[int, float]], int, dict[int, int], dict[str, int]]:
        # This thread's own connection (the store is one per thread).
        reads = state.store.ladder if isinstance(state, LocalState) else state.store.ladder.ladder
        withheld = set() if organiser else reads.in_play_among()
        points, faults = reads.bot_tallies(names, leave_out=withheld)
        # The history stops before the first withheld match of anyone's: a later rating holds that
        # match's change, its own or (by the expected score) an opponent's.
        shown = reads.live_elo_history(names, until=withheld)
        return _thinned(shown), len(shown), points, faults

    history, covered, points, faults = await asyncio.to_thread(tallies)
    return BotPage(b, rows, recent, history, points, sorted(faults.items()), covered)


def _thinned(elo: Sequence[float]) -> list[tuple[int, float]]:
    """(n, the n-th rating) through at most HISTORY_POINTS of ``elo``, evenly spread, the first and last kept."""
    n = len(elo)
    if n <= HISTORY_POINTS:
        return [(i + 1, e) for i, e in enumerate(elo)]
    picks = sorted({round(i * (n - 1) / (HISTORY_POINTS - 1)) for i in range(HISTORY_POINTS)})
    return [(i + 1, elo[i]) for i in picks]
