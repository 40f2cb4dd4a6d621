"""The arena's HTTP API (Starlette): JSON for the web site and for scripts. See docs/arena.md.

Every endpoint needs ``Authorization: Bearer TOKEN`` (401 without one or for a wrong one); a
participant acts only on their own bots (403 otherwise), organiser actions need an organiser's
token (403). Everything a bot controls (its handshake name, its errors, its log) is returned as
JSON data, never as markup.

Anonymity: while ``[classroom] anonymous`` holds and the organiser has not revealed the names,
everyone but a bot's owner (and the organisers) sees the bot's alias for its name and no owner, and
a match record shows another participant's bot by alias with its fault details and address blanked.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import importlib.metadata
import json
import re
import shutil
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ladder.arena.accounts import Account, SignInGuard, SignInLimited, new_alias
from ladder.arena.config import ArenaConfig
from ladder.arena.hosted_address import AddressRefused, Resolve, pin, resolve_host
from ladder.arena.store import IN_PIPELINE, WAITING, ArenaStore, BotRow, VersionRow, VersionStatus
from ladder.arena.submissions import ArchiveError, check_archive, stored_bytes, unpack
from ladder.arena.worker import ArenaWorker, Ratings, ladder_tournament, sandbox_mode, start_final
from ladder.bots.registry import RegistryError, check_name
from ladder.export import match_to_json

__all__ = ["ArenaState", "build_app"]

MAX_PAGE = 200
STALE_S = 5.0  # a leaderboard fitted this recently is served as it is, whatever came in since


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


@dataclass
class ArenaState:
    dir: Path
    cfg: ArenaConfig
    ratings: Ratings
    worker: ArenaWorker | None = None
    guard: SignInGuard = field(default_factory=SignInGuard)  # wrong tokens, by client address
    resolve: Resolve = resolve_host  # a hosted bot's host name to its addresses (tests drive their own)

    def __post_init__(self) -> None:
        self._local = threading.local()

    @property
    def store(self) -> ArenaStore:
        # One connection per thread: SQLite connections are not shared across threads.
        s: ArenaStore | None = getattr(self._local, "store", None)
        if s is None:
            s = ArenaStore(self.dir / "arena.db")
            self._local.store = s
        return s


def _json(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers={"X-Content-Type-Options": "nosniff"})


Handler = Callable[[Request, ArenaState, Account], Awaitable[Any]]


def _endpoint(handler: Handler, *, organiser: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        state: ArenaState = request.app.state.arena
        try:
            header = request.headers.get("authorization", "")
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise ApiError(401, "no token: send Authorization: Bearer TOKEN (the organiser gave you one)")
            try:
                # Not in a thread: a verified token is answered at once, and a check waits in the
                # guard's queue holding no thread that pages are served from.
                account = await state.guard.authenticate(state.store, token.strip(), client_address(request))
            except SignInLimited as e:
                raise ApiError(429, str(e), retry_after_s=max(1, round(e.retry_after))) from None
            if account is None:
                raise ApiError(401, "this token is not valid for this arena (ask the organiser for a new one)")
            if organiser and not account.organiser:
                raise ApiError(403, "this needs an organiser's token")
            result = await handler(request, state, account)
            return result if isinstance(result, Response) else _json(result)
        except ApiError as e:
            response = _json({"error": e.message, **e.extra}, e.status)
            if "retry_after_s" in e.extra:
                response.headers["Retry-After"] = str(e.extra["retry_after_s"])
            return response

    return endpoint


def client_address(request: Request) -> str:
    """The address a request came from (behind a reverse proxy: the proxy's, so all clients count as one)."""
    return request.client.host if request.client is not None else "?"


# -- who sees what ---------------------------------------------------------------------------------


class View:
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

    def ladder_name(self, name: str) -> str:
        """A ladder name (``BOT.vN``) as this viewer may see it."""
        v = self.versions.get(name)
        if v is None:
            return name
        bot = self.bots[v.bot_id]
        return f"{self.bot_name(bot)}.v{v.number}" if self.masked(bot) else name

    def bot_dict(self, bot: BotRow) -> dict[str, Any]:
        vs = [v for v in self.versions.values() if v.bot_id == bot.id]
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


def not_shown(name: str) -> ApiError:
    """The one answer to a name this viewer sees no bot by, reading it or submitting to it alike:
    whether it is free, another participant's hidden name or someone's alias is not told."""
    return ApiError(
        404,
        f"no bot {name!r} that you can see in this arena (a name that is taken but not shown to you "
        "cannot be submitted to either: choose another)",
    )


# -- endpoints -------------------------------------------------------------------------------------


def _deadline_passed(cfg: ArenaConfig) -> bool:
    return cfg.deadline is not None and dt.datetime.now(dt.UTC) >= cfg.deadline


async def status(request: Request, state: ArenaState, me: Account) -> Any:
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
        "submissions_open": not _deadline_passed(state.cfg),
        "anonymous": state.cfg.anonymous and store.get_meta("revealed") != "1",
        "final_tournament": int(final) if final is not None else None,
        "sandbox": sandbox_mode()[0].label,
        "sandbox_warning": sandbox_mode()[1],
        "you": {"name": me.name, "role": me.role},
        # The organiser's alone: they name bots, which an anonymous board hides.
        "events": (worker.events[-20:] if worker is not None else []) if me.organiser else None,
    }


async def me(request: Request, state: ArenaState, me: Account) -> Any:
    return {"name": me.name, "role": me.role, "alias": me.alias}


async def leaderboard(request: Request, state: ArenaState, me: Account) -> Any:
    store = state.store
    which = request.query_params.get("board", "ladder")
    rules = request.query_params.get("rules", state.cfg.rules)
    if which == "final":
        final = store.get_meta("final_tournament")
        if final is None:
            raise ApiError(404, "no final tournament yet (the organiser starts it, or the deadline does)")
        tid = int(final)
    elif which == "ladder":
        if rules != state.cfg.rules and store.get_meta(f"ladder_tournament:{rules}") is None:
            raise ApiError(404, f"no ladder of ruleset {rules!r} in this arena (it plays {state.cfg.rules!r})")
        tid = int(store.get_meta(f"ladder_tournament:{rules}") or ladder_tournament(store, state.cfg))
    else:
        raise ApiError(400, f"board {which!r}: use ladder or final")
    board = await asyncio.to_thread(lambda: state.ratings.get(state.store, tid, rules, max_age=STALE_S))
    view = View(state, me)
    all_versions = request.query_params.get("versions") == "all"
    newest = {v.ladder_name for v in store.newest_valid()}
    rows = []
    for r in board.rows:
        v = view.versions.get(r.bot)
        if which == "ladder" and not all_versions and v is not None and r.bot not in newest:
            continue  # an older version: ?versions=all lists it
        bot = view.bots[v.bot_id] if v is not None else None
        row = {k: (None if isinstance(x, float) and x != x else x) for k, x in asdict(r).items()}
        row["bot"] = view.bot_name(bot) if bot is not None else r.bot
        row["version"] = v.number if v is not None else None
        row["ladder_name"] = view.ladder_name(r.bot)
        row["owner"] = None if bot is None or view.masked(bot) else bot.owner
        row["mine"] = bot is not None and bot.owner_id == me.id
        rows.append(row)
    for i, row in enumerate(rows, start=1):
        row["rank"] = i
    return {"board": which, "tournament": tid, "rules": board.rules or rules, "matches": board.matches, "rows": rows}


async def bots(request: Request, state: ArenaState, me: Account) -> Any:
    view = View(state, me)
    return {"bots": [view.bot_dict(b) for b in view.bots.values()]}


async def bot(request: Request, state: ArenaState, me: Account) -> Any:
    view = View(state, me)
    b = view.find_bot(request.path_params["name"])
    vs = [view.version_dict(v) for v in view.versions.values() if v.bot_id == b.id]
    return {**view.bot_dict(b), "version_list": vs}


async def versions(request: Request, state: ArenaState, me: Account) -> Any:
    view = View(state, me)
    b = view.find_bot(request.path_params["name"])
    return {"versions": [view.version_dict(v) for v in view.versions.values() if v.bot_id == b.id]}


async def version(request: Request, state: ArenaState, me: Account) -> Any:
    view = View(state, me)
    b = view.find_bot(request.path_params["name"])
    n = request.path_params["number"]
    for v in view.versions.values():
        if v.bot_id == b.id and v.number == n:
            return view.version_dict(v)
    raise ApiError(404, f"bot {request.path_params['name']!r} has no version {n}")


async def version_log(request: Request, state: ArenaState, me: Account) -> Any:
    view = View(state, me)
    b = view.find_bot(request.path_params["name"])
    if not view.owns(b):
        raise ApiError(403, "a bot's logs are its owner's")
    n = request.path_params["number"]
    v = next((v for v in view.versions.values() if v.bot_id == b.id and v.number == n), None)
    if v is None:
        raise ApiError(404, f"bot {b.name!r} has no version {n}")
    text = ""
    for folder in (state.dir / "logs" / "validate", state.dir / "logs"):
        path = folder / f"{v.ladder_name}.log"
        if path.is_file():
            text += f"== {path.relative_to(state.dir)}\n" + path.read_text(errors="replace")[-64000:]
    return {"bot": b.name, "version": n, "log": text}


MAX_WAITING = 3
"""Versions one participant may have waiting for the pipeline at once (it validates one at a time)."""
_HOST_PORT = re.compile(r"(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}")  # as a bots file's address


async def submit(request: Request, state: ArenaState, me: Account) -> Any:
    cfg, store = state.cfg, state.store
    if _deadline_passed(cfg) and not me.organiser:
        assert cfg.deadline is not None
        raise ApiError(403, f"submissions closed at the deadline, {cfg.deadline.isoformat()}")
    name = request.path_params["name"]
    try:
        check_name(name)
    except RegistryError as e:
        raise ApiError(400, str(e)) from None
    existing = store.bot(name)
    # Taken: another's bot, a house bot, or an alias (another's bot's, or a user's).
    if (
        existing is None
        and store.alias_taken(name)
        or existing is not None
        and (existing.owner_id != me.id or existing.house)
    ):
        if View(state, me).shown_bot(name) is None:
            raise not_shown(name)  # as reading it answers: an anonymous board's names stay unknown
        if existing is not None and existing.house:
            raise ApiError(403, f"bot {name!r} is a house bot")
        raise ApiError(403, f"bot {name!r} is another participant's: choose another name")
    waiting = [v for v in store.versions_in(WAITING) if v.submitted_by == me.id]
    if len(waiting) >= MAX_WAITING and not me.organiser:
        # One participant's flood must not hold everyone's versions back: the pipeline takes one at a time.
        raise ApiError(
            429,
            f"you have {len(waiting)} versions waiting to be built and validated (at most {MAX_WAITING}): "
            "wait for their reports, then submit again",
        )
    body = await _capped_body(request, cfg.limits.max_archive_bytes)
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            data = json.loads(body)
        except ValueError:
            raise ApiError(400, "the body is not JSON") from None
        address = data.get("address") if isinstance(data, dict) else None
        if not isinstance(address, str) or not _HOST_PORT.fullmatch(address):
            raise ApiError(400, 'send {"address": "HOST:PORT"} for a bot you host, or a .zip as application/zip')
        if not cfg.limits.allow_local_addresses and not me.organiser:
            try:
                await asyncio.to_thread(pin, address, resolve=state.resolve)
            except AddressRefused as e:
                raise ApiError(400, str(e)) from None
        fields: dict[str, Any] = {"kind": "address", "address": address}
        bot_id = existing.id if existing is not None else store.add_bot(name, me.id, new_alias(store, name))
        v = store.add_version(bot_id, me.id, **fields)
        return _json(View(state, me).version_dict(v), 201)
    try:
        checked = check_archive(body, cfg.limits)
    except ArchiveError as e:
        raise ApiError(400, str(e)) from None
    if not me.organiser:
        await _within_quota(state, me, checked.size + checked.unpacked)
    bot_id = existing.id if existing is not None else store.add_bot(name, me.id, new_alias(store, name))
    staging = state.dir / "versions" / name / f".incoming-{checked.sha256[:16]}"
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(staging)
    try:
        await asyncio.to_thread(unpack, body, checked, staging, cfg.limits)
    except ArchiveError as e:
        raise ApiError(400, str(e)) from None
    (staging.parent / f".{checked.sha256[:16]}.zip").write_bytes(body)
    v = store.add_version(
        bot_id,
        me.id,
        status=VersionStatus.UPLOADING,  # not picked up by the pipeline before its directory is in place
        kind="archive",
        content_hash=checked.sha256,
        size=checked.size,
        files=checked.files,
        command=checked.manifest.command,
        build=checked.manifest.build,
        language=checked.manifest.language,
    )
    final = state.dir / "versions" / name / str(v.number)
    staging.rename(final)  # the version's directory, never written again
    (staging.parent / f".{checked.sha256[:16]}.zip").rename(final.with_suffix(".zip"))
    store.set_uploaded(v.id, str(final.resolve()))
    v = store.version_by_id(v.id) or v
    return _json(View(state, me).version_dict(v), 201)


async def _within_quota(state: ArenaState, me: Account, more: int) -> None:
    """413 if ``more`` bytes would take the participant's versions past ``max_stored_bytes``: one
    participant's uploads cannot fill the disk everyone's bots and matches are kept on."""
    store, quota = state.store, state.cfg.limits.max_stored_bytes
    dirs = [Path(v.path) for b in store.bots() if b.owner_id == me.id for v in store.versions(b.name) if v.path]
    used = await asyncio.to_thread(stored_bytes, dirs)
    if used + more > quota:
        raise ApiError(
            413,
            f"your versions take {used} bytes and this one {more} more: each participant may keep {quota} "
            "bytes in this arena. Ask the organiser to raise [submissions] max_stored_bytes",
        )


async def _capped_body(request: Request, limit: int) -> bytes:
    """The request's body, read no further than ``limit`` bytes (413 past it): a huge upload is
    refused without being held in memory."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"the archive is {declared} bytes; this arena takes at most {limit}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"the archive is more than {limit} bytes; this arena takes at most {limit}")
        chunks.append(chunk)
    return b"".join(chunks)


async def matches(request: Request, state: ArenaState, me: Account) -> Any:
    store = state.store
    try:
        limit = min(int(request.query_params.get("limit", 50)), MAX_PAGE)
    except ValueError:
        raise ApiError(400, "limit must be a whole number") from None
    after = request.query_params.get("after")
    tids = [ladder_tournament(store, state.cfg)]
    if (final := store.get_meta("final_tournament")) is not None:
        tids.append(int(final))
    page = store.match_page(tids, after=after, limit=limit)
    view = View(state, me)
    # A match whose deal other seatings still play shows no result (its record is withheld, 409):
    # their scores and places would tell how the deal plays.
    withheld = set() if me.organiser else store.ladder.deals_in_play([m["id"] for m in page])
    for m in page:
        m["withheld"] = m["id"] in withheld
        for s in m["seats"]:
            s["bot"] = view.ladder_name(s["bot"])
            if m["withheld"]:
                s["score"] = s["place"] = s["faults"] = s["forfeit"] = None
    return {"matches": page, "next": page[-1]["id"] if len(page) == limit else None}


async def match(request: Request, state: ArenaState, me: Account) -> Any:
    store = state.store
    mid = request.path_params["id"]
    if not store.ladder.has_match(mid):
        raise ApiError(404, f"no match {mid!r}")
    if not me.organiser and store.ladder.deal_in_play(mid):
        # Its deal (every hand, and the seed) is still being played by other bots in other seats.
        raise ApiError(
            409,
            f"match {mid}'s deal is still to be played in other seats (duplicate deals): "
            "its record is shown once every seating of it is recorded",
        )
    record = await asyncio.to_thread(lambda: state.store.ladder.load_match(mid))
    data = match_to_json(record)
    view = View(state, me)
    hidden_seats = set()
    unseen: list[str] = []  # the addresses this viewer may not see: every bot's but their own
    for s in data["seats"]:
        v = view.versions.get(s["bot"])
        bot = view.bots[v.bot_id] if v is not None else None
        if bot is None or not view.owns(bot):
            if s["address"]:
                unseen.append(s["address"])
            s["address"] = None  # a house bot's is where the organiser's bots listen
            if bot is None or not bot.house:
                hidden_seats.add(s["seat"])
        s["bot"] = view.ladder_name(s["bot"])
    for f in data["faults"]:
        if f["seat"] in hidden_seats:  # another participant's fault details are theirs
            f["detail"] = f["sent"] = f["received"] = None
        else:  # a house bot's say why it failed, not where it listens
            for key in ("detail", "sent", "received"):
                f[key] = without_addresses(f[key], unseen)
    return data


HIDDEN = "(address hidden)"


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


async def live(request: Request, state: ArenaState, me: Account) -> Any:
    worker = state.worker
    view = View(state, me)
    items = []
    for mid, m in list((worker.live if worker is not None else {}).items()):
        # No seed: it deals every hand of a match still in play.
        items.append({"id": mid, "seats": [view.ladder_name(s) for s in m["seats"]]})
    return {"live": items, "note": "the matches of the batch in play that are not yet recorded"}


async def pause(request: Request, state: ArenaState, me: Account) -> Any:
    state.store.set_meta("paused", "1")
    return {"paused": True}


async def resume(request: Request, state: ArenaState, me: Account) -> Any:
    state.store.set_meta("paused", "0")
    return {"paused": False}


async def reveal(request: Request, state: ArenaState, me: Account) -> Any:
    state.store.set_meta("revealed", "1")
    return {"revealed": True}


async def final(request: Request, state: ArenaState, me: Account) -> Any:
    try:
        # In a thread: a hosted bot's name is resolved, and its DNS may be slow on purpose.
        tid = await asyncio.to_thread(lambda: start_final(state.store, state.cfg, resolve=state.resolve))
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    return {"final_tournament": tid}


async def users(request: Request, state: ArenaState, me: Account) -> Any:
    return {"users": [{"name": u.name, "role": u.role, "alias": u.alias} for u in state.store.users()]}


# (method, path, handler, organiser only, summary): the routes and the OpenAPI description alike.
API: list[tuple[str, str, Handler, bool, str]] = [
    ("GET", "/api/status", status, False, "The arena: rules, paused, matches, queue, live, deadline, you"),
    ("GET", "/api/me", me, False, "Your name, role and alias"),
    ("GET", "/api/leaderboard", leaderboard, False, "The ladder (?rules=, ?board=ladder|final, ?versions=all)"),
    ("GET", "/api/bots", bots, False, "Every bot"),
    ("GET", "/api/bots/{name}", bot, False, "One bot and its versions"),
    ("GET", "/api/bots/{name}/versions", versions, False, "A bot's versions with their reports (the owner's)"),
    ("POST", "/api/bots/{name}/versions", submit, False, 'Submit a version: a .zip body, or {"address": ...}'),
    ("GET", "/api/bots/{name}/versions/{number:int}", version, False, "One version with its reports"),
    ("GET", "/api/bots/{name}/versions/{number:int}/log", version_log, False, "A version's output (its owner's)"),
    ("GET", "/api/matches", matches, False, "Recorded matches, newest first (?limit=, ?after=)"),
    ("GET", "/api/matches/{id}", match, False, "One match in the export format (docs/export.md)"),
    ("GET", "/api/live", live, False, "The matches of the batch in play not yet recorded"),
    ("POST", "/api/admin/pause", pause, True, "Pause the ladder between matches"),
    ("POST", "/api/admin/resume", resume, True, "Resume the ladder"),
    ("POST", "/api/admin/reveal", reveal, True, "End anonymity: names for everyone"),
    ("POST", "/api/admin/final", final, True, "Start the final tournament (once)"),
    ("GET", "/api/admin/users", users, True, "Every user with role and alias"),
]


async def openapi(request: Request, state: ArenaState, me: Account) -> Any:
    paths: dict[str, dict[str, Any]] = {}
    for method, path, _h, organiser, summary in API:
        op: dict[str, Any] = {
            "summary": summary + (" (organiser)" if organiser else ""),
            "security": [{"bearer": []}],
            "responses": {"200": {"description": "JSON"}, "401": {"description": "no or a wrong token"}},
        }
        if organiser or method == "POST":
            op["responses"]["403"] = {"description": "not yours, or not an organiser"}
        paths.setdefault(path.replace(":int", ""), {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "hearts-arena", "version": "1", "description": "See docs/arena.md"},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }


def routes() -> list[Route]:
    out = [Route(path, _endpoint(h, organiser=org), methods=[m]) for m, path, h, org, _s in API]
    return [*out, Route("/api/openapi.json", _endpoint(openapi))]


def build_app(
    arena_dir: Path, cfg: ArenaConfig, *, background: bool = True, resolve: Resolve = resolve_host
) -> Starlette:
    """The ASGI app. ``background``: run the pipeline and the ladder (the worker) with it.
    ``resolve``: how a hosted bot's host name is resolved (the system's resolver; a test drives its own)."""
    state = ArenaState(dir=arena_dir, cfg=cfg, ratings=Ratings(), resolve=resolve)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ladder_tournament(state.store, cfg)
        if background:
            state.worker = ArenaWorker(arena_dir, cfg, state.ratings, resolve=resolve)
            state.worker.start()
            deadline_task = asyncio.create_task(_deadline_watch(state))
        try:
            yield
        finally:
            if background:
                deadline_task.cancel()
                assert state.worker is not None
                await asyncio.to_thread(state.worker.stop)

    app = Starlette(routes=routes(), lifespan=lifespan)
    app.state.arena = state
    # The web site (ladder/site/) and any other extension mount their pages here, found by their
    # entry points (group hearts_arena.site): the arena never imports them.
    for ep in importlib.metadata.entry_points(group="hearts_arena.site"):
        ep.load()(app, state)
    return app


async def _deadline_watch(state: ArenaState) -> None:
    """Start the final tournament at the deadline, when arena.toml says so."""
    cfg = state.cfg
    if cfg.deadline is None or not cfg.final_auto:
        return
    while not _deadline_passed(cfg):
        await asyncio.sleep(0.5)
    # Versions submitted before the deadline may still be in the pipeline: they count once checked.
    while state.store.versions_in(WAITING):
        await asyncio.sleep(0.5)
    try:
        await asyncio.to_thread(lambda: start_final(state.store, cfg, resolve=state.resolve))
    except ValueError as e:
        if state.worker is not None:
            state.worker.events.append(f"the final tournament could not start at the deadline: {e}")
